#pragma once
// Reading a metric's Keras config ({"name": ..., "dtype": ..., plus its own arguments}) in the
// from_config factories, with the same errors for every metric.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/framework/core/config.h"

namespace kiln::metrics {

// Rejects keys other than "name", "dtype" and `own_keys` (naming the class and suggesting the
// closest key), requires dtype to be float32 when given (kiln keeps metric state in float32),
// and returns "name", or `default_name` when it is absent or null.
std::string read_common_config(const Config& config, std::string_view class_name,
                               std::string_view default_name,
                               std::initializer_list<std::string_view> own_keys = {});

// The integer at `key`, or nullopt when it is absent or null (Keras's None).
std::optional<int64_t> optional_int(const Config& config, std::string_view key);

}  // namespace kiln::metrics
