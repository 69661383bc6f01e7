#pragma once
// Comparing values that oneDNN computes. oneDNN picks a kernel per instruction set (AVX2,
// AVX-512, AMX) and each blocks a reduction its own way, so two paths over the same numbers (a
// fused primitive against the separate ops, a traced step against the eager one) agree bit for bit
// on one processor and only to rounding on another. A sum of n terms added in another order
// differs by at most about n units in the last place of the largest magnitude involved, so that
// is the tolerance: `ulps` units of the dtype's epsilon times the reduction length, scaled by the
// largest magnitude of the expected values. Bitwise claims stay where kiln's own loops do the
// arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::testing {

// The tolerance for values of `want` that came out of reductions of `reduction_length` terms.
inline double reduction_tolerance(const std::vector<double>& want, DType dtype,
                                  int64_t reduction_length, double ulps = 4) {
  const double eps = dtype == DType::f64 ? std::numeric_limits<double>::epsilon()
                                         : std::numeric_limits<float>::epsilon();
  double scale = std::numeric_limits<double>::min();
  for (const double v : want) scale = std::max(scale, std::abs(v));
  return ulps * eps * static_cast<double>(reduction_length) * scale;
}

// Expects `got` to equal `want` within reduction_tolerance, naming `what` and the element.
inline void expect_close_after_reductions(const Tensor& got, const Tensor& want,
                                          int64_t reduction_length, const std::string& what,
                                          double ulps = 4) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
  const double tol = reduction_tolerance(w, want.dtype(), reduction_length, ulps);
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], w[i], tol) << what << " element " << i << " (tolerance " << tol << ")";
  }
}

// Expects `got`, a bfloat16 result, to be `want32` rounded to bfloat16 once, where want32 is the
// same computation in float32 on the same (bfloat16) inputs: within half a bfloat16 ulp of each
// value (2^-8 of it) beyond float32's reduction tolerance for the sums' order.
inline void expect_bf16_rounded_once(const Tensor& got, const Tensor& want32,
                                     int64_t reduction_length, const std::string& what) {
  ASSERT_EQ(got.dtype(), DType::bf16) << what;
  ASSERT_EQ(got.shape(), want32.shape()) << what;
  const std::vector<double> g = got.to_vector<double>(), w = want32.to_vector<double>();
  const double sums = reduction_tolerance(w, DType::f32, reduction_length);
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], w[i], 0x1p-8 * std::abs(w[i]) + sums) << what << " element " << i;
  }
}

}  // namespace kiln::testing
