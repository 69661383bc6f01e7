#pragma once
// The loop shape the reference convolution and pooling ops share: the result viewed as rows (an
// NHWC tensor as [N*H*W, C]), each row computed in double (these loops are the oracle) by one call
// of body(row, acc), acc starting at zero, and then stored. Rows are independent, so they run in
// parallel.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cpu::reference {

template <typename T, typename Body>
void accumulate_rows(T* out, int64_t rows, int64_t width, Body&& body) {
  parallel_for(rows, 64, [&](int64_t begin, int64_t end) {
    std::vector<double> acc(static_cast<size_t>(width));
    for (int64_t row = begin; row < end; ++row) {
      std::fill(acc.begin(), acc.end(), 0.0);
      body(row, acc.data());
      for (int64_t j = 0; j < width; ++j) out[row * width + j] = convert_value<T>(acc[j]);
    }
  });
}

// Row r of an NHWC tensor of spatial size height x width is pixel (n, h, w).
struct Pixel {
  int64_t n = 0;
  int64_t h = 0;
  int64_t w = 0;
};
inline Pixel pixel_of(int64_t row, int64_t height, int64_t width) {
  return {row / (height * width), row / width % height, row % width};
}
// The row of pixel (n, h, w); times the channel count, the offset of its first element.
inline int64_t row_of(int64_t n, int64_t h, int64_t w, int64_t height, int64_t width) {
  return (n * height + h) * width + w;
}

// Element i, widened for the double sums.
template <typename T>
double value_at(const T* p, int64_t i) {
  return convert_value<double>(p[i]);
}

}  // namespace kiln::cpu::reference
