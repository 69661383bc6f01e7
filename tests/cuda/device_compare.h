#pragma once
// Deterministic test data and a tolerance-aware comparison, for tests that run the same op on
// the CPU and on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::testing {

// Multiples of 1/4 (exact in every floating dtype, and some compare equal): signed in [-3, 3),
// or in [1, 3.5] for positive domains, integer division and unsigned dtypes. Small magnitudes
// keep integer pow within u8; bool alternates irregularly.
inline Tensor values(const Shape& shape, DType dtype, bool positive) {
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = positive ? 1.0 + 0.5 * static_cast<double>(i % 6)
                    : -3.0 + 0.25 * static_cast<double>((i * 7) % 24);
  if (dtype == DType::boolean)
    for (size_t i = 0; i < v.size(); ++i) v[i] = (i * 5) % 3 == 0;
  return from_vector(v, shape, dtype);
}

// Relative tolerances cover a last-bit difference between the GPU's and glibc's math functions,
// which rounding to 16 bits can turn into one 16-bit ulp; integers and bools must be equal.
inline double tolerance(DType dtype) {
  switch (dtype) {
    case DType::f64:
      return 1e-12;
    case DType::f32:
      return 1e-5;
    case DType::f16:
      return 2e-3;
    case DType::bf16:
      return 2e-2;
    default:
      return 0;
  }
}

// `got` (on `device`) against `want` (on the CPU), element by element.
inline void expect_matches(const Tensor& got, const Tensor& want, double scale = 1.0) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  const std::vector<double> g = got.to_vector<double>();
  const std::vector<double> w = want.to_vector<double>();
  const double tol = scale * tolerance(want.dtype());
  for (size_t i = 0; i < w.size(); ++i)
    ASSERT_LE(std::abs(g[i] - w[i]), tol * std::max(1.0, std::abs(w[i])))
        << "element " << i << ": " << got.device() << " " << g[i] << ", cpu " << w[i];
}

}  // namespace kiln::testing
