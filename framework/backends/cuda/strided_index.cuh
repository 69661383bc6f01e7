#pragma once
// Maps a linear index over a row-major shape to element offsets in N operands that each walk
// that shape with their own strides: how kernels address broadcast inputs, or the kept and the
// reduced parts of a reduction's input. Kernels take it by value.
#include <array>
#include <cstdint>

#include "kiln/framework/backends/cpu/broadcast_plan.h"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {

inline constexpr int kMaxRank = cpu::kMaxPlanRank;

template <int N>
struct StridedIndex {
  int rank = 0;  // 0 addresses a single element at offset 0
  int64_t dims[kMaxRank] = {};
  int64_t strides[N][kMaxRank] = {};  // element strides, 0 along broadcast dims

  // Adds an inner dim (host side, outermost first).
  void append(int64_t dim, const std::array<int64_t, N>& dim_strides) {
    KILN_CHECK(rank < kMaxRank, "CUDA kernels support tensors of rank up to ", kMaxRank);
    dims[rank] = dim;
    for (size_t k = 0; k < N; ++k) strides[k][rank] = dim_strides[k];
    ++rank;
  }

  __device__ void offsets(int64_t i, int64_t (&off)[N]) const {
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int d = rank - 1; d > 0; --d) {
      const int64_t q = i / dims[d];
      for (int k = 0; k < N; ++k) off[k] += (i - q * dims[d]) * strides[k][d];
      i = q;
    }
    for (int k = 0; k < N; ++k) off[k] += i * strides[k][0];
  }
};

}  // namespace kiln::cuda
