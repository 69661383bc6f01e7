#pragma once
// Keras config keys kiln accepts but does not implement (constraints, activity regularizers,
// quantization, ...). A Keras config always writes them, mostly as null; a value other than
// Keras's default would change the layer, so it is an error instead of being dropped.
#include <initializer_list>
#include <string_view>

#include "kiln/framework/core/config.h"

namespace kiln::layers {

// Each of `keys` must be absent or null.
void require_null(const Config& config, std::initializer_list<std::string_view> keys,
                  std::string_view class_name);

}  // namespace kiln::layers
