// random_uniform on CUDA: each thread computes whole Philox blocks of the draw with the CPU
// kernel's stream and conversions (random::uniform_block, uniform_value), so a seeded draw is
// the same bits on both devices. The seed is read on the device, where it lives.
#include <algorithm>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/random/philox.h"

namespace kiln::cuda {
namespace {

template <typename T>
__global__ void uniform_kernel(T* out, int64_t n, const int64_t* seed) {
  constexpr int64_t kPerBlock = random::kUniformPerBlock<T>;
  const auto key = static_cast<uint64_t>(seed[0]);
  const auto counter = static_cast<uint64_t>(seed[1]);
  const int64_t blocks = (n + kPerBlock - 1) / kPerBlock;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks;
       b += step) {
    const random::PhiloxBlock block = random::uniform_block(key, counter, static_cast<uint64_t>(b));
    for (int64_t j = 0; j < kPerBlock && b * kPerBlock + j < n; ++j)
      out[b * kPerBlock + j] = random::uniform_value<T>(block, j);
  }
}

void random_uniform_kernel(const KernelContext& c) {
  const int64_t n = c.output.numel();
  if (n == 0) return;
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  visit_dtypes<kFloatingDTypes>(c.output.dtype(), "CUDA kernel", [&]<typename T>() {
    const int64_t blocks = (n + random::kUniformPerBlock<T> - 1) / random::kUniformPerBlock<T>;
    const auto grid = grid_for(blocks);
    uniform_kernel<<<grid, kThreads, 0, current_stream(device)>>>(
        static_cast<T*>(c.output.raw_data()), n, data_of<int64_t>(c.inputs[1]));
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void register_random_kernels(OpTable& t) {
  t.set_kernel(OpId::random_uniform, DeviceType::cuda, random_uniform_kernel);
}

}  // namespace kiln::cuda
