#pragma once
// Reading a metric's Keras config ({"name": ..., "dtype": ..., plus its own arguments}) in the
// from_config factories, with the same errors for every metric.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/config_fields.h"
#include "kiln/framework/core/error.h"

namespace kiln::metrics {

// Rejects keys other than "name", "dtype" and `own_keys` (naming the class and suggesting the
// closest key), requires dtype to be float32 when given (kiln keeps metric state in float32),
// and returns "name", or `default_name` when it is absent or null.
std::string read_common_config(const Config& config, std::string_view class_name,
                               std::string_view default_name,
                               const std::vector<std::string>& own_keys = {});

// A metric's name (as read_common_config) and its own arguments, read by their field table:
//   auto [name, args] = read_metric_fields(config, fields(), "BinaryAccuracy", "binary_accuracy");
// get_config writes them back with write_fields(args, fields(), Metric::get_config()).
template <typename Arguments>
std::pair<std::string, Arguments> read_metric_fields(const Config& config,
                                                     const FieldTable<Arguments>& table,
                                                     std::string_view class_name,
                                                     std::string_view default_name) {
  std::string name = read_common_config(config, class_name, default_name, field_keys(table));
  return {std::move(name), read_fields(config, table, detail::concat("metric ", class_name),
                                       Arguments{}, {"name", "dtype"})};
}

}  // namespace kiln::metrics
