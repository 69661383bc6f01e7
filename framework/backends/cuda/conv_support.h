#pragma once
// The device work the cuDNN convolutions (conv_kernels.cpp) need around cuDNN's calls: moving
// operands between kiln's layouts (NHWC activations, HWIO kernels) and cuDNN's, with the extra
// zero row or column of TensorFlow's asymmetric "same" padding, the patches of the GEMM-based
// filter gradient, and the bias + relu epilogue of conv2d_bias_activation.
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "kiln/framework/core/dtype.h"

namespace kiln::cuda {

// The logical dims of a 4-D activation (batch, channels, height, width) or convolution kernel
// (out channels, in channels per group, height, width), and orders of those axes in memory,
// outermost first.
using Dims4 = std::array<int64_t, 4>;
using AxisOrder = std::array<int, 4>;
inline constexpr AxisOrder kNhwc{0, 2, 3, 1};  // also cuDNN's KRSC kernel layout
inline constexpr AxisOrder kNchw{0, 1, 2, 3};  // also cuDNN's KCRS kernel layout
inline constexpr AxisOrder kHwio{2, 3, 1, 0};  // Keras's [kh, kw, in/groups, out] kernels

// Fills the dense array `dst` (logical dims dst_dims stored in dst_order) from the dense array
// `src` (src_dims in src_order): each element of dst is src's at the same logical index, or zero
// where that index is past src_dims. One call so permutes axes, pads with zeros after the end
// of an axis, crops, or does all at once. Elements of element_size bytes (2, 4 or 8) are moved
// as bits, so this serves every floating dtype.
void relayout(const void* src, AxisOrder src_order, const Dims4& src_dims, void* dst,
              AxisOrder dst_order, const Dims4& dst_dims, size_t element_size, cudaStream_t stream);

// The patches a convolution's kernel taps read, one row per output position: for an NHWC
// input x [batch, in_h, in_w, channels] and output positions (n, oh, ow), cols[(n * out_h + oh)
// * out_w + ow, (kh * kernel_w + kw) * channels + c] = x[n, ih, iw, c] at the tap's input cell
// (ih = oh * stride_h - pad_top + kh * dilation_h, likewise iw), zero where that falls in the
// padding. Its columns are ordered as an HWIO kernel's rows, so a filter gradient is
// cols^T . grad_out. Every index must fit in int (the caller checks).
struct Im2colShape {
  int batch, channels;
  int in_h, in_w, out_h, out_w;
  int kernel_h, kernel_w;
  int stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
};
void im2col(const void* x, void* cols, const Im2colShape& shape, size_t element_size,
            cudaStream_t stream);

// out[i] = out[i] + bias[i % channels] over `count` elements of a floating dtype, then max(., 0)
// when `relu` (which maps NaN to 0), summed in float (double for float64), which rounds as the
// exact sum would: the CPU's add_channel_bias.
void add_channel_bias(void* out, const void* bias, int64_t count, int64_t channels, DType dtype,
                      bool relu, cudaStream_t stream);

}  // namespace kiln::cuda
