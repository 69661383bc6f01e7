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
  // Machine epsilon: 2^-52, 2^-23, and 2^-10 and 2^-7 for the two 16-bit floats.
  const double eps = dtype == DType::f64    ? std::numeric_limits<double>::epsilon()
                     : dtype == DType::f16  ? 0x1p-10
                     : dtype == DType::bf16 ? 0x1p-7
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

}  // namespace kiln::testing
