// Reverse mode: accumulation over shared values, unreachable inputs, stop_gradient, no-grad
// scopes, intermediate targets and higher orders.
#include <gtest/gtest.h>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

Tensor d(std::vector<double> v) {
  const auto n = static_cast<int64_t>(v.size());
  return from_vector(v, {n});
}

TEST(Autodiff, AccumulatesOverSharedSubexpressions) {
  // y = sum(x*x + x*x) -> dy/dx = 4x
  const auto g = grad(
      [](const std::vector<Tensor>& p) {
        const Tensor sq = p[0] * p[0];
        return ops::sum(sq + sq);
      },
      {d({1, 2, 3})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{4, 8, 12}));
}

TEST(Autodiff, ValueAndGradReturnsTheValue) {
  auto [value, grads] = value_and_grad(
      [](const std::vector<Tensor>& p) { return ops::sum(p[0] * p[1]); }, {d({1, 2}), d({3, 4})});
  EXPECT_EQ(value.item<double>(), 11);
  EXPECT_EQ(grads[0].to_vector<double>(), (std::vector<double>{3, 4}));
  EXPECT_EQ(grads[1].to_vector<double>(), (std::vector<double>{1, 2}));
  EXPECT_FALSE(value.requires_grad());
}

TEST(Autodiff, UnusedInputsGetZeros) {
  const auto g =
      grad([](const std::vector<Tensor>& p) { return ops::sum(p[0]); }, {d({1, 2}), d({5, 6, 7})});
  EXPECT_EQ(g[1].to_vector<double>(), (std::vector<double>{0, 0, 0}));
}

TEST(Autodiff, StopGradientBlocksFlow) {
  const auto g =
      grad([](const std::vector<Tensor>& p) { return ops::sum(p[0] * ops::stop_gradient(p[0])); },
           {d({2, 3})});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{2, 3}));
}

TEST(Autodiff, NoGradGuardRecordsNothing) {
  Tensor x = d({1, 2});
  x.set_requires_grad(true);
  {
    NoGradGuard guard;
    const Tensor y = x * 2.0;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_EQ(y.node(), nullptr);
  }
  const Tensor y = x * 2.0;
  EXPECT_TRUE(y.requires_grad());
  ASSERT_NE(y.node(), nullptr);
}

TEST(Autodiff, GradientsWithRespectToIntermediates) {
  Tensor x = d({1, 2});
  x.set_requires_grad(true);
  const Tensor h = x * 3.0;
  const Tensor y = ops::sum(ops::square(h));
  const auto g = gradients(y, {h, x});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{6, 12}));
  EXPECT_EQ(g[1].to_vector<double>(), (std::vector<double>{18, 36}));
}

TEST(Autodiff, SecondAndThirdOrder) {
  // f = x^3: f' = 3x^2, f'' = 6x, f''' = 6
  auto f = [](const std::vector<Tensor>& p) { return ops::sum(p[0] * p[0] * p[0]); };
  auto df = [&](const std::vector<Tensor>& p) { return ops::sum(grad(f, p)[0]); };
  auto ddf = [&](const std::vector<Tensor>& p) { return ops::sum(grad(df, p)[0]); };
  const Tensor x = d({2, -1});
  EXPECT_EQ(grad(f, {x})[0].to_vector<double>(), (std::vector<double>{12, 3}));
  EXPECT_EQ(grad(df, {x})[0].to_vector<double>(), (std::vector<double>{12, -6}));
  EXPECT_EQ(grad(ddf, {x})[0].to_vector<double>(), (std::vector<double>{6, 6}));
}

TEST(Autodiff, HessianVectorProductOfAComposite) {
  // Second order through softmax, matmul and tanh against finite differences of the gradient.
  const Tensor w = testing::random_f64({3, 4}, -1, 1, 11);
  const Tensor x = testing::random_f64({2, 3}, -1, 1, 12);
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) {
        return grad(
            [&](const std::vector<Tensor>& p) {
              return ops::sum(ops::log_softmax(ops::tanh(ops::matmul(x, p[0]))));
            },
            {in[0]})[0];
      },
      {w});
}

TEST(Autodiff, DeepChainsDoNotOverflowTheStack) {
  auto f = [](const std::vector<Tensor>& p) {
    Tensor y = p[0];
    for (int i = 0; i < 20000; ++i) y = y * 1.0;
    return ops::sum(y);
  };
  EXPECT_EQ(grad(f, {d({1})})[0].item<double>(), 1);
}

TEST(Autodiff, NonFloatingOutputIsRejected) {
  Tensor x = d({1});
  x.set_requires_grad(true);
  EXPECT_THROW(gradients(ops::argmax(x), {x}), Error);
}

}  // namespace
}  // namespace kiln
