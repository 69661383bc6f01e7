#pragma once
// Iteration over an output with N inputs broadcast to it. Adjacent dims that are contiguous in
// every input are merged first, so the common cases (same shape, a scalar, a bias row) become
// one or two long rows that the compiler vectorizes.
#include <array>
#include <cstdint>
#include <span>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/shape.h"

namespace kiln::cpu {

inline constexpr int kMaxPlanRank = 12;

template <int N>
struct BroadcastPlan {
  int rank = 0;  // after merging; at least 1
  std::array<int64_t, kMaxPlanRank> dims{};
  std::array<std::array<int64_t, kMaxPlanRank>, N> strides{};  // element strides, 0 = broadcast

  BroadcastPlan(const std::array<const Shape*, N>& inputs, const Shape& out) {
    const int out_rank = out.rank();
    KILN_CHECK(out_rank <= kMaxPlanRank, "tensors of rank ", out_rank, " exceed the supported ",
               kMaxPlanRank);
    std::array<std::array<int64_t, kMaxPlanRank>, N> raw{};
    for (int k = 0; k < N; ++k) {
      const Shape& s = *inputs[static_cast<size_t>(k)];
      int64_t stride = 1;
      for (int i = out_rank - 1; i >= 0; --i) {
        const int j = i - (out_rank - s.rank());
        const int64_t d = j >= 0 ? s[j] : 1;
        raw[static_cast<size_t>(k)][static_cast<size_t>(i)] = (d == 1 && out[i] != 1) ? 0 : stride;
        stride *= d;
      }
    }
    for (int i = 0; i < out_rank; ++i) {
      const int64_t d = out[i];
      if (d == 1) continue;  // size-1 dims never move an index
      bool merge = rank > 0;
      for (int k = 0; k < N && merge; ++k) {
        const auto& r = raw[static_cast<size_t>(k)];
        merge = strides[static_cast<size_t>(k)][static_cast<size_t>(rank - 1)] ==
                r[static_cast<size_t>(i)] * d;
      }
      if (merge) {
        dims[static_cast<size_t>(rank - 1)] *= d;
        for (int k = 0; k < N; ++k)
          strides[static_cast<size_t>(k)][static_cast<size_t>(rank - 1)] =
              raw[static_cast<size_t>(k)][static_cast<size_t>(i)];
      } else {
        dims[static_cast<size_t>(rank)] = d;
        for (int k = 0; k < N; ++k)
          strides[static_cast<size_t>(k)][static_cast<size_t>(rank)] =
              raw[static_cast<size_t>(k)][static_cast<size_t>(i)];
        ++rank;
      }
    }
    if (rank == 0) {  // a scalar output
      rank = 1;
      dims[0] = 1;
      for (int k = 0; k < N; ++k) strides[static_cast<size_t>(k)][0] = 0;
    }
  }

  int64_t inner() const { return dims[static_cast<size_t>(rank - 1)]; }
  int64_t inner_stride(int k) const {
    return strides[static_cast<size_t>(k)][static_cast<size_t>(rank - 1)];
  }

  // Calls row(out_pos, offsets, length) for each run of the innermost dim within output
  // elements [begin, end): offsets are the inputs' element offsets of the run's first element.
  template <typename Row>
  void for_each_row(int64_t begin, int64_t end, Row&& row) const {
    std::array<int64_t, kMaxPlanRank> idx{};
    int64_t rem = begin;
    for (int i = rank - 1; i >= 0; --i) {
      idx[static_cast<size_t>(i)] = rem % dims[static_cast<size_t>(i)];
      rem /= dims[static_cast<size_t>(i)];
    }
    int64_t pos = begin;
    while (pos < end) {
      std::array<int64_t, N> off{};
      for (int k = 0; k < N; ++k)
        for (int i = 0; i < rank; ++i)
          off[static_cast<size_t>(k)] +=
              idx[static_cast<size_t>(i)] * strides[static_cast<size_t>(k)][static_cast<size_t>(i)];
      const int64_t len = std::min(inner() - idx[static_cast<size_t>(rank - 1)], end - pos);
      row(pos, off, len);
      pos += len;
      idx[static_cast<size_t>(rank - 1)] += len;
      for (int i = rank - 1; i > 0 && idx[static_cast<size_t>(i)] == dims[static_cast<size_t>(i)];
           --i) {
        idx[static_cast<size_t>(i)] = 0;
        ++idx[static_cast<size_t>(i - 1)];
      }
    }
  }
};

}  // namespace kiln::cpu
