#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

TEST(Softmax, SumsToOneAndIsStable) {
  const Tensor x = tensor({1000, 1001, 1002, -5, 0, 5}, {2, 3});
  const Tensor s = ops::softmax(x);
  const auto v = s.to_vector<double>();
  const double e1 = std::exp(-1.0), e2 = std::exp(-2.0);
  EXPECT_NEAR(v[2], 1 / (1 + e1 + e2), 1e-6);
  EXPECT_NEAR(ops::sum(s, {1}).to_vector<double>()[0], 1, 1e-6);
  const auto ls = ops::log_softmax(x).to_vector<double>();
  EXPECT_NEAR(ls[2], -std::log(1 + e1 + e2), 1e-5);
  for (double l : ls) EXPECT_TRUE(std::isfinite(l));
  EXPECT_EQ(ops::softmax(x, 0).shape(), (Shape{2, 3}));
}

TEST(Softmax, Gradients) {
  const Tensor x = testing::random_f64({3, 5}, -3, 3);
  for (int64_t axis : {0, 1, -1}) {
    testing::expect_gradients_match(
        [&](const std::vector<Tensor>& in) { return ops::softmax(in[0], axis); }, {x});
    testing::expect_gradients_match(
        [&](const std::vector<Tensor>& in) { return ops::log_softmax(in[0], axis); }, {x});
  }
}

}  // namespace
}  // namespace kiln
