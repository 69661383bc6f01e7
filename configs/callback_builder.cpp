#include "kiln/configs/callback_builder.h"

#include "kiln/configs/keras_objects.h"
#include "kiln/framework/core/error.h"
#include "kiln/training/callbacks/registry.h"

namespace kiln::configs {

std::vector<CallbackPtr> build_callbacks(const Config& list, const std::string& output_dir,
                                         const std::string& run_config) {
  std::vector<CallbackPtr> out;
  if (list.is_null()) return out;
  KILN_CHECK(list.is_list(), list.where(), "callbacks must be a list");
  const callbacks::CallbackPlace place{output_dir, run_config};
  for (const Config& entry : list.as_list())
    out.push_back(located(entry, [&] { return callbacks::from_config(entry, place); }));
  return out;
}

}  // namespace kiln::configs
