#pragma once
// Output size and padding of one spatial axis of a convolution or pooling window, with
// TensorFlow's rule for "same" (the extra padding row goes after).
#include <algorithm>
#include <cstdint>

namespace kiln {

struct AxisGeometry {
  int64_t out = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

inline AxisGeometry axis_geometry(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                                  bool same) {
  const int64_t effective = (kernel - 1) * dilation + 1;
  if (in < 0) return {-1, 0, 0};
  if (!same) return {in >= effective ? (in - effective) / stride + 1 : 0, 0, 0};
  const int64_t out = (in + stride - 1) / stride;
  const int64_t total = std::max<int64_t>((out - 1) * stride + effective - in, 0);
  return {out, total / 2, total - total / 2};
}

}  // namespace kiln
