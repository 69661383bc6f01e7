#include "kiln/framework/backends/cpu/strided_copy.h"

#include <cstring>

#include "kiln/framework/backends/cpu/parallel.h"

namespace kiln::cpu {
namespace {

template <typename E>
void copy_rows(const StridedView& dst, const StridedView& src, const std::vector<int64_t>& dims) {
  const int rank = static_cast<int>(dims.size());
  if (rank == 0) {
    *static_cast<E*>(dst.base) = *static_cast<const E*>(src.base);
    return;
  }
  const int64_t inner = dims.back();
  const int64_t ds = dst.strides.back();
  const int64_t ss = src.strides.back();
  int64_t rows = 1;
  for (int i = 0; i + 1 < rank; ++i) rows *= dims[static_cast<size_t>(i)];
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1));
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t rem = row, doff = 0, soff = 0;
      for (int i = rank - 2; i >= 0; --i) {
        const int64_t idx = rem % dims[static_cast<size_t>(i)];
        rem /= dims[static_cast<size_t>(i)];
        doff += idx * dst.strides[static_cast<size_t>(i)];
        soff += idx * src.strides[static_cast<size_t>(i)];
      }
      E* d = static_cast<E*>(dst.base) + doff;
      const E* s = static_cast<const E*>(src.base) + soff;
      if (ds == 1 && ss == 1) {
        std::memcpy(d, s, static_cast<size_t>(inner) * sizeof(E));
      } else if (ss == 0) {
        const E v = *s;
        for (int64_t i = 0; i < inner; ++i) d[i * ds] = v;
      } else {
        for (int64_t i = 0; i < inner; ++i) d[i * ds] = s[i * ss];
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
