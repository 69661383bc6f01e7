#include "kiln/framework/backends/cuda/fill.h"

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cuda {
namespace {

template <typename T>
__global__ void fill_kernel(T* out, int64_t n, T value) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = value;
}

__global__ void iota_kernel(int64_t* out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = i;
}

}  // namespace

void fill(const Tensor& t, double value) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const auto blocks = grid_for(n);
  const int device = t.device().index;
  const DeviceGuard guard(device);
  visit_dtype(t.dtype(), [&]<typename T>() {
    fill_kernel<<<blocks, kThreads, 0, current_stream(device)>>>(static_cast<T*>(t.raw_data()), n,
                                                                 convert_value<T>(value));
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

void iota(const Tensor& t) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const int device = t.device().index;
  const DeviceGuard guard(device);
  iota_kernel<<<grid_for(n), kThreads, 0, current_stream(device)>>>(
      static_cast<int64_t*>(t.raw_data()), n);
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace kiln::cuda
