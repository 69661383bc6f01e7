#include "kiln/framework/backends/cuda/conv_support.h"
#include "kiln/framework/backends/cuda/launch_grid.h"

#include <algorithm>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

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

template <typename T>
__global__ void channel_bias_kernel(T* out, const T* bias, int64_t n, int64_t channels, bool relu) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
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
  const auto launch = [&]<typename Bits>() {
    relayout_kernel<<<grid_for(n), kThreads, 0, stream>>>(static_cast<const Bits*>(src),
                                                          static_cast<Bits*>(dst), n, plan);
  };
  switch (element_size) {
    case 2:
      launch.template operator()<uint16_t>();
      break;
    case 4:
      launch.template operator()<uint32_t>();
      break;
    case 8:
      launch.template operator()<uint64_t>();
      break;
    default:
      throw Error(
          detail::concat("relayout: no CUDA kernel for elements of ", element_size, " bytes"));
  }
  KILN_CUDA_CHECK(cudaGetLastError());
}

void add_channel_bias(void* out, const void* bias, int64_t count, int64_t channels, DType dtype,
                      bool relu, cudaStream_t stream) {
  if (count == 0) return;
  visit_float_dtype(dtype, "conv2d_bias_activation", [&]<typename T>() {
    channel_bias_kernel<<<grid_for(count), kThreads, 0, stream>>>(
        static_cast<T*>(out), static_cast<const T*>(bias), count, channels, relu);
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace kiln::cuda
