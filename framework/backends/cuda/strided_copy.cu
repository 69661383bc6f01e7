#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/backends/cuda/strided_copy.h"

#include <algorithm>
#include <cstdint>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/strided_index.cuh"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

// Elements move as unsigned words of their size: a copy never looks at values.
template <typename Word>
__global__ void copy_kernel(Word* dst, const Word* src, int64_t n,
                            const __grid_constant__ StridedIndex<2> index) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[2];
    index.offsets(i, off);
    dst[off[0]] = src[off[1]];
  }
}

template <typename Word>
void launch(const DeviceView& dst, const DeviceView& src, const StridedIndex<2>& index, int64_t n,
            int device) {
  const auto blocks = grid_for(n);
  copy_kernel<<<blocks, kThreads, 0, current_stream(device)>>>(
      static_cast<Word*>(dst.base), static_cast<const Word*>(src.base), n, index);
}

}  // namespace

void strided_copy(const DeviceView& dst, const DeviceView& src, const std::vector<int64_t>& dims,
                  size_t elem_size, int device) {
  int64_t n = 1;
  StridedIndex<2> index;
  for (size_t d = 0; d < dims.size(); ++d) {
    n *= dims[d];
    index.append(dims[d], {dst.strides[d], src.strides[d]});
  }
  if (n == 0) return;
  const DeviceGuard guard(device);
  switch (elem_size) {
    case 1:
      launch<uint8_t>(dst, src, index, n, device);
      break;
    case 2:
      launch<uint16_t>(dst, src, index, n, device);
      break;
    case 4:
      launch<uint32_t>(dst, src, index, n, device);
      break;
    case 8:
      launch<uint64_t>(dst, src, index, n, device);
      break;
    default:
      throw Error(
          detail::concat("CUDA strided copy: elements of ", elem_size, " bytes are not supported"));
  }
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace kiln::cuda
