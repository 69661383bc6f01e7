#include "kiln/framework/backends/cuda/conv_support.h"
#include "kiln/framework/backends/cuda/launch_grid.h"

#include <algorithm>
#include <climits>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

// f.template operator()<Bits>() with the unsigned type of element_size bytes (2, 4 or 8): kernels
// that only move elements serve every floating dtype so.
template <typename F>
void visit_bits(size_t element_size, const char* what, F f) {
  switch (element_size) {
    case 2:
      return f.template operator()<uint16_t>();
    case 4:
      return f.template operator()<uint32_t>();
    case 8:
      return f.template operator()<uint64_t>();
    default:
      throw Error(
          detail::concat(what, ": no CUDA kernel for elements of ", element_size, " bytes"));
  }
}

// The destination's axes in its memory order, outermost first: their sizes, the source's
// element strides along them, and the source's sizes (indices past them read as zero).
struct RelayoutPlan {
  int64_t dims[4];
  int64_t src_strides[4];
  int64_t src_dims[4];
};

template <typename Bits>
__global__ void relayout_kernel(const Bits* src, Bits* dst, int64_t n, RelayoutPlan p) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t rest = i;
    int64_t offset = 0;
    bool inside = true;
    for (int d = 3; d >= 0; --d) {
      const int64_t index = rest % p.dims[d];
      rest /= p.dims[d];
      inside = inside && index < p.src_dims[d];
      offset += index * p.src_strides[d];
    }
    dst[i] = inside ? src[offset] : Bits{0};  // all-zero bits are +0.0 in every floating dtype
  }
}

// A thread per element of cols, 32-bit indices (the caller keeps every index within int).
template <typename Bits>
__global__ void im2col_kernel(const Bits* x, Bits* cols, int n, Im2colShape s) {
  const int step = static_cast<int>(gridDim.x * blockDim.x);
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += step) {
    const int c = i % s.channels;
    int rest = i / s.channels;
    const int kw = rest % s.kernel_w;
    rest /= s.kernel_w;
    const int kh = rest % s.kernel_h;
    rest /= s.kernel_h;
    const int ow = rest % s.out_w;
    rest /= s.out_w;
    const int oh = rest % s.out_h;
    const int b = rest / s.out_h;
    const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
    const int iw = ow * s.stride_w - s.pad_left + kw * s.dilation_w;
    const bool inside = ih >= 0 && ih < s.in_h && iw >= 0 && iw < s.in_w;
    cols[i] = inside ? x[((b * s.in_h + ih) * s.in_w + iw) * s.channels + c] : Bits{0};
  }
}

// I: the index type, 32-bit where the count allows (the channel of each element is a division).
template <typename T, typename I>
__global__ void channel_bias_kernel(T* out, const T* bias, I n, I channels, bool relu) {
  const I step = static_cast<I>(gridDim.x * blockDim.x);
  for (I i = static_cast<I>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += step) {
    // In float for the 32- and 16-bit types: their sum rounds to T as the exact one would.
    using C = compute_t<T>;
    const C v = convert_value<C>(out[i]) + convert_value<C>(bias[i % channels]);
    out[i] = convert_value<T>(relu && !(v > 0) ? C{0} : v);
  }
}

}  // namespace

void relayout(const void* src, AxisOrder src_order, const Dims4& src_dims, void* dst,
              AxisOrder dst_order, const Dims4& dst_dims, size_t element_size,
              cudaStream_t stream) {
  // The source's element stride of each logical axis.
  Dims4 strides{};
  int64_t stride = 1;
  for (int k = 3; k >= 0; --k) {
    const auto axis = static_cast<size_t>(src_order[static_cast<size_t>(k)]);
    strides[axis] = stride;
    stride *= src_dims[axis];
  }
  RelayoutPlan plan{};
  int64_t n = 1;
  for (size_t k = 0; k < 4; ++k) {
    const auto axis = static_cast<size_t>(dst_order[k]);
    plan.dims[k] = dst_dims[axis];
    plan.src_strides[k] = strides[axis];
    plan.src_dims[k] = src_dims[axis];
    n *= dst_dims[axis];
  }
  if (n == 0) return;  // no grid of zero blocks
  visit_bits(element_size, "relayout", [&]<typename Bits>() {
    relayout_kernel<<<grid_for(n), kThreads, 0, stream>>>(static_cast<const Bits*>(src),
                                                          static_cast<Bits*>(dst), n, plan);
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

void im2col(const void* x, void* cols, const Im2colShape& shape, size_t element_size,
            cudaStream_t stream) {
  const int64_t n = int64_t{shape.batch} * shape.out_h * shape.out_w * shape.kernel_h *
                    shape.kernel_w * shape.channels;
  if (n == 0) return;  // no grid of zero blocks
  visit_bits(element_size, "im2col", [&]<typename Bits>() {
    im2col_kernel<<<grid_for(n), kThreads, 0, stream>>>(
        static_cast<const Bits*>(x), static_cast<Bits*>(cols), static_cast<int>(n), shape);
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

void add_channel_bias(void* out, const void* bias, int64_t count, int64_t channels, DType dtype,
                      bool relu, cudaStream_t stream) {
  if (count == 0) return;
  visit_float_dtype(dtype, "conv2d_bias_activation", [&]<typename T>() {
    if (count <= INT_MAX - kMaxBlocks * kThreads)
      channel_bias_kernel<<<grid_for(count), kThreads, 0, stream>>>(
          static_cast<T*>(out), static_cast<const T*>(bias), static_cast<int>(count),
          static_cast<int>(channels), relu);
    else
      channel_bias_kernel<<<grid_for(count), kThreads, 0, stream>>>(
          static_cast<T*>(out), static_cast<const T*>(bias), count, channels, relu);
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace kiln::cuda
