// cond and while_loop inside traced graphs: a branch or trip count that depends on a tensor's
// value takes one trace, and traced results equal eager ones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/engine/control_flow/control_flow.h"
#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

std::vector<Tensor> signed_scale(const Tensor& x, const Tensor& bias) {
  return cond(
      ops::greater(ops::sum(x), 0.0),
      [&](const std::vector<Tensor>& v) { return std::vector{v[0] * 2.0 + bias}; },
      [&](const std::vector<Tensor>& v) { return std::vector{-v[0]}; }, {x});
}

TEST(ControlFlow, CondTakesEitherBranchFromOneTrace) {
  auto f = function([](const Tensor& x, const Tensor& bias) { return signed_scale(x, bias)[0]; });
  const Tensor bias = full({3}, 0.5);
  const Tensor positive = tensor({1, 2, 3});
  const Tensor negative = tensor({-1, -2, 0});
  EXPECT_EQ(f(positive, bias).to_vector<float>(), (std::vector<float>{2.5, 4.5, 6.5}));
  EXPECT_EQ(f(negative, bias).to_vector<float>(), (std::vector<float>{1, 2, -0.0f}));
  EXPECT_EQ(f.stats().traces, 1);
  EXPECT_EQ(signed_scale(positive, bias)[0].to_vector<float>(),
            f(positive, bias).to_vector<float>());
  EXPECT_THAT(f.graph_text(), HasSubstr("cond("));
  EXPECT_THAT(f.graph_text(), HasSubstr("tuple_get("));
}

TEST(ControlFlow, WhileLoopWithATensorTripCountDoesNotRetracePerValue) {
  // x doubled n times; n is a tensor argument, so every n shares one trace.
  auto doubled = function([](const Tensor& x, const Tensor& n) {
    return while_loop([&](const std::vector<Tensor>& v) { return ops::less(v[0], n); },
                      [](const std::vector<Tensor>& v) {
                        return std::vector{v[0] + 1.0, v[1] * 2.0};
                      },
                      {scalar(0), x})[1];
  });
  const Tensor x = tensor({1, 3});
  for (int n : {0, 1, 5, 3}) {
    const float factor = static_cast<float>(1 << n);
    EXPECT_EQ(doubled(x, scalar(n)).to_vector<float>(), (std::vector<float>{factor, 3 * factor}));
  }
  EXPECT_EQ(doubled.stats().traces, 1);
  EXPECT_EQ(doubled.stats().plans, 1);
}

TEST(ControlFlow, LoopVariablesPassThroughOverManyIterations) {
  // The body alternates between two planned buffers; an unchanged variable is copied across.
  auto accumulate = function([](const Tensor& x, const Tensor& n) {
    return while_loop([&](const std::vector<Tensor>& v) { return ops::less(v[0], n); },
                      [](const std::vector<Tensor>& v) {
                        return std::vector{v[0] + 1.0, v[1], v[2] + v[1]};
                      },
                      {scalar(0), x, ops::zeros_like(x)})[2];
  });
  EXPECT_EQ(accumulate(tensor({1, 2}), scalar(100)).to_vector<float>(),
            (std::vector<float>{100, 200}));
  EXPECT_EQ(accumulate(tensor({1, 2}), scalar(7)).to_vector<float>(), (std::vector<float>{7, 14}));
  EXPECT_EQ(accumulate.stats().traces, 1);
}

TEST(ControlFlow, BranchesReadVariablesAsTheyAreAtThatPointOfTheTrace) {
  Variable step(zeros({}), "step");
  auto f = function([&](const Tensor& x) {
    step.assign_add(scalar(1));
    return cond(
        ops::greater(step.value(), 2.0),
        [&](const std::vector<Tensor>& v) { return std::vector{v[0] * step.value()}; },
        [&](const std::vector<Tensor>& v) { return std::vector{v[0]}; }, {x})[0];
  });
  EXPECT_EQ(f(ones({2})).to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(f(ones({2})).to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(f(ones({2})).to_vector<float>(), (std::vector<float>{3, 3}));
  EXPECT_EQ(f.stats().traces, 1);
}

TEST(ControlFlow, EagerCallsRunThePlainCode) {
  int taken = 0;
  const auto out = cond(
      scalar(1, DType::boolean),
      [&](const std::vector<Tensor>& v) {
        ++taken;
        return v;
      },
      [&](const std::vector<Tensor>& v) { return v; }, {ones({1})});
  EXPECT_EQ(taken, 1);
  const auto counted =
      while_loop([](const std::vector<Tensor>& v) { return ops::less(v[0], 4.0); },
                 [](const std::vector<Tensor>& v) { return std::vector{v[0] + 1.0}; }, {scalar(0)});
  EXPECT_EQ(counted[0].item<float>(), 4.0f);
}

TEST(ControlFlow, MismatchedBranchesAndShapeChangingLoopsAreErrors) {
  auto branches = function([](const Tensor& x) {
    return cond(
        ops::greater(ops::sum(x), 0.0),
        [](const std::vector<Tensor>& v) { return std::vector{v[0]}; },
        [](const std::vector<Tensor>& v) { return std::vector{ops::cast(v[0], DType::f64)}; },
        {x})[0];
  });
  EXPECT_THROW(
      {
        try {
          branches(ones({2}));
        } catch (const Error& e) {
          EXPECT_THAT(e.what(), HasSubstr("float32[2] in the then-branch and float64[2]"));
          throw;
        }
      },
      Error);
  auto growing = function([](const Tensor& x) {
    return while_loop([](const std::vector<Tensor>& v) { return ops::less(ops::sum(v[0]), 10.0); },
                      [](const std::vector<Tensor>& v) {
                        return std::vector{ops::concat({v[0], v[0]})};
                      },
                      {x})[0];
  });
  EXPECT_THROW(growing(ones({2})), Error);
}

TEST(ControlFlow, AssignmentsAndGradientsInsideAreRefusedNotSilent) {
  Variable total(zeros({}), "total");
  auto assigns = function([&](const Tensor& x) {
    return cond(
        ops::greater(ops::sum(x), 0.0),
        [&](const std::vector<Tensor>& ops_) {
          total.assign(ops::sum(ops_[0]));
          return ops_;
        },
        [](const std::vector<Tensor>& ops_) { return ops_; }, {x})[0];
  });
  EXPECT_THROW(assigns(ones({2})), Error);
  auto differentiated = function([](const Tensor& x) {
    return grad(
        [](const std::vector<Tensor>& p) {
          return ops::sum(cond(
              ops::greater(ops::sum(p[0]), 0.0),
              [](const std::vector<Tensor>& v) { return std::vector{v[0] * 2.0}; },
              [](const std::vector<Tensor>& v) { return v; }, {p[0]})[0]);
        },
        {x})[0];
  });
  EXPECT_THROW(differentiated(ones({2})), Error);
}

}  // namespace
}  // namespace kiln
