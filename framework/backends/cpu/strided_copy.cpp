#include "kiln/framework/backends/cpu/strided_copy.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kiln/framework/backends/cpu/parallel.h"

namespace kiln::cpu {
namespace {

// Rows this short are copied element by element rather than through a memcpy call.
constexpr int64_t kShortRow = 8;

// Adjacent axes that step through both views as one (the outer stride is the inner one times the
// inner size, in each view) merged into one axis: fewer, longer rows.
void merge_axes(std::vector<int64_t>& dims, std::vector<int64_t>& dst, std::vector<int64_t>& src) {
  size_t out = 0;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dst[out] == dst[i] * dims[i] && src[out] == src[i] * dims[i]) {
      dims[out] *= dims[i];
      dst[out] = dst[i];
      src[out] = src[i];
    } else {
      ++out;
      dims[out] = dims[i];
      dst[out] = dst[i];
      src[out] = src[i];
    }
  }
  dims.resize(out + 1);
  dst.resize(out + 1);
  src.resize(out + 1);
}

template <typename E>
void copy_rows(const StridedView& dst_view, const StridedView& src_view,
               std::vector<int64_t> dims) {
  if (dims.empty()) {
    *static_cast<E*>(dst_view.base) = *static_cast<const E*>(src_view.base);
    return;
  }
  std::vector<int64_t> dst = dst_view.strides, src = src_view.strides;
  merge_axes(dims, dst, src);
  const int rank = static_cast<int>(dims.size());
  const int64_t inner = dims.back();
  const int64_t ds = dst.back();
  const int64_t ss = src.back();
  int64_t rows = 1;
  for (int i = 0; i + 1 < rank; ++i) rows *= dims[static_cast<size_t>(i)];
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1));
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    // The first row's index by division, the next ones by counting up (an odometer).
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    int64_t rem = begin, doff = 0, soff = 0;
    for (int i = rank - 2; i >= 0; --i) {
      const auto a = static_cast<size_t>(i);
      index[a] = rem % dims[a];
      rem /= dims[a];
      doff += index[a] * dst[a];
      soff += index[a] * src[a];
    }
    for (int64_t row = begin; row < end; ++row) {
      E* d = static_cast<E*>(dst_view.base) + doff;
      const E* s = static_cast<const E*>(src_view.base) + soff;
      if (ds == 1 && ss == 1 && inner <= kShortRow) {
        for (int64_t i = 0; i < inner; ++i) d[i] = s[i];  // a pixel's channels: no call
      } else if (ds == 1 && ss == 1) {
        std::memcpy(d, s, static_cast<size_t>(inner) * sizeof(E));
      } else if (ss == 0) {
        const E v = *s;
        for (int64_t i = 0; i < inner; ++i) d[i * ds] = v;
      } else {
        for (int64_t i = 0; i < inner; ++i) d[i * ds] = s[i * ss];
      }
      for (int i = rank - 2; i >= 0; --i) {
        const auto a = static_cast<size_t>(i);
        doff += dst[a];
        soff += src[a];
        if (++index[a] < dims[a]) break;
        doff -= dims[a] * dst[a];
        soff -= dims[a] * src[a];
        index[a] = 0;
      }
    }
  });
}

}  // namespace

void strided_copy(const StridedView& dst, const StridedView& src, const std::vector<int64_t>& dims,
                  size_t elem_size) {
  for (int64_t d : dims)
    if (d == 0) return;
  switch (elem_size) {
    case 1:
      return copy_rows<uint8_t>(dst, src, dims);
    case 2:
      return copy_rows<uint16_t>(dst, src, dims);
    case 4:
      return copy_rows<uint32_t>(dst, src, dims);
    default:
      return copy_rows<uint64_t>(dst, src, dims);
  }
}

}  // namespace kiln::cpu
