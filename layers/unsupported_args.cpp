#include "kiln/layers/unsupported_args.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {

void require_null(const Config& config, std::initializer_list<std::string_view> keys,
                  std::string_view class_name) {
  for (const std::string_view key : keys) {
    const Config* v = config.find(key);
    KILN_CHECK(v == nullptr || v->is_null(), v == nullptr ? std::string() : v->where(), class_name,
               ": '", key, "' is not supported by kiln (got ", v->to_json(), "); leave it null");
  }
}

}  // namespace kiln::layers
