#pragma once
// Python slice semantics for one axis of strided_slice, shared by its inference, views and
// kernels. A slice's attrs keep the bounds as written when the axis is unknown while tracing
// (x[:, 1:] on a sequence of unknown length), so every consumer resolves them against the dim it
// sees at run time.
#include <algorithm>
#include <cstdint>
#include <limits>

namespace kiln {

// An omitted begin or end (Python's x[::-1], x[1:]).
inline constexpr int64_t kSliceEnd = std::numeric_limits<int64_t>::max();

struct ResolvedSlice {
  int64_t begin;   // first index read (0 when the slice is empty)
  int64_t length;  // elements selected
};

// begin/end may be negative (counted from the end) or kSliceEnd; stride is nonzero.
inline ResolvedSlice resolve_slice(int64_t dim, int64_t begin, int64_t end, int64_t stride) {
  auto absolute = [dim](int64_t v, int64_t lo, int64_t hi) {
    return std::clamp(v < 0 ? v + dim : v, lo, hi);
  };
  int64_t b = 0, length = 0;
  if (stride > 0) {
    b = begin == kSliceEnd ? 0 : absolute(begin, 0, dim);
    const int64_t e = end == kSliceEnd ? dim : absolute(end, 0, dim);
    length = std::max<int64_t>(0, (e - b + stride - 1) / stride);
  } else {
    b = begin == kSliceEnd ? dim - 1 : absolute(begin, -1, dim - 1);
    const int64_t e = end == kSliceEnd ? -1 : absolute(end, -1, dim - 1);
    length = std::max<int64_t>(0, (b - e - stride - 1) / -stride);
  }
  return {length > 0 ? b : 0, length};
}

}  // namespace kiln
