// Variables are captured by reference: a traced train step updates them in place, and
// assigning or swapping weights never retraces.
#include <gtest/gtest.h>

#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln {
namespace {

struct Linear {
  Variable w;
  Variable b;
  explicit Linear(uint64_t seed) {
    random::Generator gen(seed);
    w = Variable(random::normal({3, 1}, 0, 1, DType::f32, gen), "w");
    b = Variable(zeros({1}), "b");
  }
};

Tensor mse_step(const Linear& m, const Tensor& x, const Tensor& y) {
  auto [loss, grads] = value_and_grad(
      [&](const std::vector<Tensor>& p) {
        return ops::mean(ops::square(ops::matmul(x, p[0]) + p[1] - y));
      },
      {m.w.value(), m.b.value()});
  m.w.assign_sub(grads[0] * 0.1);
  m.b.assign_sub(grads[1] * 0.1);
  return loss;
}

void expect_same(const Tensor& a, const Tensor& b) {
  const auto va = a.to_vector<float>();
  const auto vb = b.to_vector<float>();
  ASSERT_EQ(va.size(), vb.size());
  for (size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(va[i], vb[i], 1e-6f) << "element " << i;
}

TEST(Variables, TracedTrainStepMatchesEagerAndUpdatesInPlace) {
  Linear traced_model(1);
  Linear eager_model(1);
  random::Generator gen(7);
  const Tensor x = random::normal({8, 3}, 0, 1, DType::f32, gen);
  const Tensor y = random::normal({8, 1}, 0, 1, DType::f32, gen);
  auto step =
      function([&](const Tensor& xb, const Tensor& yb) { return mse_step(traced_model, xb, yb); });
  for (int i = 0; i < 5; ++i) {
    const Tensor traced_loss = step(x, y);
    const Tensor eager_loss = mse_step(eager_model, x, y);
    expect_same(traced_loss, eager_loss);
  }
  expect_same(traced_model.w.value(), eager_model.w.value());
  expect_same(traced_model.b.value(), eager_model.b.value());
  EXPECT_EQ(step.stats().traces, 1);
}

TEST(Variables, AssigningOrSwappingWeightsNeverRetraces) {
  Linear model(1);
  Linear other(2);
  auto predict =
      function([&](const Tensor& x) { return ops::matmul(x, model.w.value()) + model.b.value(); });
  const Tensor x = ones({2, 3});
  predict(x);
  model.w.assign(full({3, 1}, 2.0));
  expect_same(predict(x), full({2, 1}, 6.0));
  // Load the other model's weights: same architecture, same trace.
  model.w.assign(other.w.value());
  model.b.assign(other.b.value());
  expect_same(predict(x), ops::matmul(x, other.w.value()) + other.b.value());
  EXPECT_EQ(predict.stats().traces, 1);
  EXPECT_EQ(predict.stats().plans, 1);
}

TEST(Variables, ReadsAfterAssignSeeTheNewValueAndReturnedReadsAreSnapshots) {
  Variable counter(zeros({}), "counter");
  auto bump = function([&](const Tensor& by) {
    const Tensor before = counter.value();
    counter.assign_add(by);
    return std::pair{before, counter.value() * 10.0};
  });
  auto [before, after] = bump(scalar(2));
  EXPECT_EQ(before.item<float>(), 0.0f);
  EXPECT_EQ(after.item<float>(), 20.0f);
  EXPECT_EQ(counter.value().item<float>(), 2.0f);
  auto [before2, after2] = bump(scalar(3));
  EXPECT_EQ(before.item<float>(), 0.0f);  // the first result is not overwritten
  EXPECT_EQ(before2.item<float>(), 2.0f);
  EXPECT_EQ(after2.item<float>(), 50.0f);
}

TEST(Variables, SwapThroughTemporariesIsSafe) {
  Variable a(full({2}, 1.0), "a");
  Variable b(full({2}, 2.0), "b");
  auto swap = function([&](int) {
    const Tensor old_a = a.value();
    a.assign(b.value());
    b.assign(old_a);
  });
  swap(0);
  EXPECT_EQ(a.value().to_vector<float>(), (std::vector<float>{2, 2}));
  EXPECT_EQ(b.value().to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST(Variables, AssignRejectsAnotherShape) {
  Variable v(zeros({2, 2}), "kernel");
  EXPECT_THROW(v.assign(zeros({3})), Error);
}

}  // namespace
}  // namespace kiln
