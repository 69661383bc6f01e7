#pragma once
// One kernel template runs every elementwise op: each thread maps an output element to its
// inputs' offsets through broadcast strides and applies the op. The strides come from the CPU's
// BroadcastPlan, which merges dims first, so same-shape operands index as one flat row and a
// bias row as two dims.
#include <algorithm>
#include <array>
#include <cstdint>

#include "kiln/framework/backends/cpu/broadcast_plan.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/backends/cuda/strided_index.cuh"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cuda {

// __grid_constant__ lets threads read the index from parameter memory without a private copy.
template <typename Out, int N, typename Op>
__global__ void elementwise_kernel(Out* out, int64_t n,
                                   const __grid_constant__ StridedIndex<N> index, Op op) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[N];
    index.offsets(i, off);
    out[i] = op(off);
  }
}

// Runs op over `out` on its device's stream; op reads its N inputs at the offsets it is given.
// `inputs` supply only the shapes that broadcast to out's.
template <typename Out, int N, typename Op>
void launch_elementwise(const std::array<const Tensor*, N>& inputs, const Tensor& out,
                        const Op& op) {
  std::array<const Shape*, N> shapes{};
  for (size_t k = 0; k < N; ++k) shapes[k] = &inputs[k]->shape();
  const cpu::BroadcastPlan<N> plan(shapes, out.shape());
  StridedIndex<N> index;
  for (size_t d = 0; d < static_cast<size_t>(plan.rank); ++d) {
    std::array<int64_t, N> strides{};
    for (size_t k = 0; k < N; ++k) strides[k] = plan.strides[k][d];
    index.append(plan.dims[d], strides);
  }
  const int64_t n = out.numel();
  if (n == 0) return;  // no grid of zero blocks
  const auto blocks = grid_for(n);
  const int device = out.device().index;
  const DeviceGuard guard(device);
  elementwise_kernel<<<blocks, kThreads, 0, current_stream(device)>>>(
      static_cast<Out*>(out.raw_data()), n, index, op);
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace kiln::cuda
