// gather and range_like on CUDA, over (outer, axis, inner) views as on the CPU (scatter_add,
// gather's adjoint, is scatter_add_kernel.cu). Indices live on the device, so they cannot be
// checked before the launch: an index outside [0, axis) gathers zeros, as TensorFlow's GPU
// kernel does.
#include <algorithm>

#include "kiln/framework/backends/axis_split.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/fill.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cuda {
namespace {

// One thread per output element [o, j, i] = params[o, indices[j], i].
template <typename T, typename I>
__global__ void gather_kernel(T* out, const T* params, const I* indices, AxisSplit p, int64_t n) {
  const int64_t total = p.outer * n * p.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const int64_t i = k % p.inner;
    const int64_t j = (k / p.inner) % n;
    const int64_t o = k / (p.inner * n);
    const auto row = static_cast<int64_t>(indices[j]);
    out[k] = row >= 0 && row < p.axis ? params[(o * p.axis + row) * p.inner + i] : T{};
  }
}

void gather(const KernelContext& c) {
  const Tensor& params = c.inputs[0];
  const Tensor& indices = c.inputs[1];
  const AxisSplit p = split_at(params.shape(), static_cast<int>(c.attrs.get(attr::axis)));
  const int64_t n = indices.numel();
  if (c.output.numel() == 0) return;
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  const auto blocks = grid_for(c.output.numel());
  visit_dtype(params.dtype(), [&]<typename T>() {
    visit_dtypes<kIndexDTypes>(indices.dtype(), "gather indices", [&]<typename I>() {
      gather_kernel<<<blocks, kThreads, 0, current_stream(device)>>>(
          static_cast<T*>(c.output.raw_data()), data_of<T>(params), data_of<I>(indices), p, n);
    });
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

void range_like(const KernelContext& c) {
  iota(c.output);
}

}  // namespace

void register_index_kernels(OpTable& t) {
  constexpr auto gpu = DeviceType::cuda;
  t.set_kernel(OpId::gather, gpu, gather);
  t.set_kernel(OpId::range_like, gpu, range_like);
}

}  // namespace kiln::cuda
