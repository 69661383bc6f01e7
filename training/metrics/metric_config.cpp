#include "kiln/training/metrics/metric_config.h"

#include <vector>

#include "kiln/framework/core/error.h"

namespace kiln::metrics {

std::string read_common_config(const Config& config, std::string_view class_name,
                               std::string_view default_name,
                               const std::vector<std::string>& own_keys) {
  KILN_CHECK(config.is_map(), config.where(), "the config of metric ", class_name,
             " must be a map, got ", Config::type_name(config.type()));
  std::vector<std::string> known = {"name", "dtype"};
  known.insert(known.end(), own_keys.begin(), own_keys.end());
  config.check_keys(known, "metric " + std::string(class_name));
  const std::string dtype = config.get_string("dtype", "float32");
  KILN_CHECK(dtype == "float32", config.where(), "metric ", class_name,
             ": dtype must be float32 (kiln keeps metric state in float32), got '", dtype, "'");
  return config.get_string("name", default_name);
}

}  // namespace kiln::metrics
