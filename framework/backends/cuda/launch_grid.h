#pragma once
// The launch shape kiln's own CUDA kernels share: blocks of kThreads threads in grid-stride
// loops over their items, at most kMaxBlocks blocks (more only add scheduling work).
#include <algorithm>
#include <cstdint>

namespace kiln::cuda {

inline constexpr int kThreads = 256;
inline constexpr int64_t kMaxBlocks = int64_t{1} << 16;

// Blocks for n items, `threads` to a block.
inline unsigned grid_for(int64_t n, int threads = kThreads) {
  return static_cast<unsigned>(std::min<int64_t>((n + threads - 1) / threads, kMaxBlocks));
}

}  // namespace kiln::cuda
