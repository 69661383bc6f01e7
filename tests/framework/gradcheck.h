#pragma once
// Finite-difference gradient checks in float64, shared by every op's tests.
#include <gtest/gtest.h>

#include <vector>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"

namespace kiln::testing {

struct GradCheckOptions {
  double eps = 1e-6;
  double atol = 1e-6;
  double rtol = 1e-5;
  // For ops with kinks (relu, abs, max, pooling): a larger step and looser tolerance; the test
  // must still pick inputs at least a few eps away from the kinks.
  static GradCheckOptions nonsmooth() { return {1e-4, 1e-4, 1e-3}; }
};

// Checks autodiff against central differences for loss = sum(f(xs) * w), w a fixed random
// weight of f's output shape (so every output element contributes differently). xs must be
// float64.
inline void expect_gradients_match(const TensorFunction& f, const std::vector<Tensor>& xs,
                                   GradCheckOptions opt = {}) {
  for (const Tensor& x : xs) ASSERT_EQ(x.dtype(), DType::f64) << "gradient checks run in float64";
  random::Generator gen(1234);
  const Tensor y0 = f(xs);
  const Tensor w = random::uniform(y0.shape(), 0.5, 1.5, DType::f64, gen);
  auto loss = [&](const std::vector<Tensor>& in) { return ops::sum(f(in) * w); };
  const std::vector<Tensor> analytic = grad(loss, xs);
  ASSERT_EQ(analytic.size(), xs.size());
  for (size_t k = 0; k < xs.size(); ++k) {
    const std::vector<double> base = xs[k].to_vector<double>();
    const std::vector<double> got = analytic[k].to_vector<double>();
    ASSERT_EQ(analytic[k].shape(), xs[k].shape()) << "gradient shape of input " << k;
    for (size_t i = 0; i < base.size(); ++i) {
      auto at = [&](double delta) {
        std::vector<double> v = base;
        v[i] += delta;
        std::vector<Tensor> in = xs;
        in[k] = from_vector(v, xs[k].shape());
        return loss(in).item<double>();
      };
      const double numeric = (at(opt.eps) - at(-opt.eps)) / (2 * opt.eps);
      EXPECT_NEAR(got[i], numeric, opt.atol + opt.rtol * std::abs(numeric))
          << "input " << k << " element " << i;
    }
  }
}

// A float64 tensor of uniform values in [lo, hi).
inline Tensor random_f64(const Shape& shape, double lo = -1, double hi = 1, uint64_t seed = 7) {
  random::Generator gen(seed);
  return random::uniform(shape, lo, hi, DType::f64, gen);
}

}  // namespace kiln::testing
