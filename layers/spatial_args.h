#pragma once
// The arguments windowed layers share with Keras (convolution, pooling, padding, upsampling):
// int-or-tuple sizes (kernel_size, strides, dilation_rate, pool_size, size) and data_format.
#include <cstdint>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/config_fields.h"

namespace kiln::layers {

// A size given once for every spatial axis or once per axis, as `rank` values of at least
// `minimum` (padding may be 0, sizes may not). `what` names the layer class and argument in
// errors ("Conv2D kernel_size").
std::vector<int64_t> per_axis(const std::vector<int64_t>& value, int rank, std::string_view what,
                              int64_t minimum = 1);

// kiln's windowed layers work on channels_last only; a config asking for channels_first (Keras
// writes data_format into every such config) is an error rather than a silent transpose.
template <typename Options>
ConfigField<Options> channels_last_field() {
  return fixed_field<Options>("data_format", Config("channels_last"),
                              "kiln layers take channels_last inputs");
}

}  // namespace kiln::layers
