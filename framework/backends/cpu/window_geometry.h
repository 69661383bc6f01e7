#pragma once
// The sizes the convolution and pooling kernels (oneDNN and reference) share, derived once from
// the operand shapes and the op's attrs so every path agrees on the padding.
#include <cstdint>

#include "kiln/framework/core/shape.h"
#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/ops/conv_geometry.h"

namespace kiln::cpu {

// One spatial axis of a sliding window: output o's tap t reads input input_at(o, t).
struct WindowAxis {
  int64_t in = 0;
  int64_t out = 0;
  int64_t kernel = 0;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_before = 0;
  int64_t pad_after = 0;

  int64_t input_at(int64_t o, int64_t t) const { return o * stride - pad_before + t * dilation; }
  bool inside(int64_t i) const { return i >= 0 && i < in; }
  // The output whose tap t reads input i, or -1 when none does (the adjoint of input_at).
  int64_t output_reading(int64_t i, int64_t t) const {
    const int64_t shifted = i + pad_before - t * dilation;
    if (shifted < 0 || shifted % stride != 0 || shifted / stride >= out) return -1;
    return shifted / stride;
  }
  // How many of output o's taps read real input rather than padding.
  int64_t taps_inside(int64_t o) const {
    int64_t n = 0;
    for (int64_t t = 0; t < kernel; ++t) n += inside(input_at(o, t)) ? 1 : 0;
    return n;
  }
};

inline WindowAxis window_axis(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                              bool same) {
  const AxisGeometry g = axis_geometry(in, kernel, stride, dilation, same);
  return {in, g.out, kernel, stride, dilation, g.pad_before, g.pad_after};
}

// conv2d of an NHWC input with an HWIO kernel [kh, kw, in/groups, out].
struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t groups = 1;
  WindowAxis h, w;

  int64_t in_per_group() const { return in_channels / groups; }
  int64_t out_per_group() const { return out_channels / groups; }
};

inline ConvGeometry conv_geometry(const Shape& x, const Shape& kernel, const Attrs& attrs) {
  const auto& s = attrs.get(attr::strides);
  const auto& d = attrs.get(attr::dilation);
  const bool same = attrs.get(attr::same);
  return {x[0],
          x[3],
          kernel[3],
          attrs.get(attr::groups),
          window_axis(x[1], kernel[0], s[0], d[0], same),
          window_axis(x[2], kernel[1], s[1], d[1], same)};
}

// 2-D pooling of an NHWC input; windows never dilate.
struct PoolGeometry {
  int64_t batch = 0;
  int64_t channels = 0;
  WindowAxis h, w;
};

inline PoolGeometry pool_geometry(const Shape& x, const Attrs& attrs) {
  const auto& k = attrs.get(attr::pool_size);
  const auto& s = attrs.get(attr::strides);
  const bool same = attrs.get(attr::same);
  return {x[0], x[3], window_axis(x[1], k[0], s[0], 1, same),
          window_axis(x[2], k[1], s[1], 1, same)};
}

}  // namespace kiln::cpu
