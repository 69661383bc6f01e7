// The learning rate is a variable (or a schedule over the iterations variable): changing it
// between traced steps changes the update without retracing, and a schedule follows the step.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/engine/function/function.h"
#include "kiln/optimizers/sgd.h"

namespace kiln::optimizers {
namespace {

using ::testing::HasSubstr;

TEST(LearningRate, SetBetweenTracedStepsChangesTheUpdateWithoutRetracing) {
  SGD sgd({.learning_rate = 0.1});
  const Variable w(ones({3}), "w");
  auto train_step =
      kiln::function([&](const Tensor& gradient) { sgd.apply_gradients({gradient}, {w}); });
  train_step(full({3}, 2.0));
  EXPECT_FLOAT_EQ(w.value().to_vector<float>()[0], 1.0f - 0.1f * 2.0f);
  sgd.set_learning_rate(0.5);
  EXPECT_DOUBLE_EQ(sgd.learning_rate(), 0.5);
  train_step(full({3}, 2.0));
  EXPECT_FLOAT_EQ(w.value().to_vector<float>()[0], 0.8f - 0.5f * 2.0f);
  EXPECT_EQ(train_step.stats().traces, 1);
  EXPECT_EQ(sgd.iterations().value().item<int64_t>(), 2);
}

TEST(LearningRate, ScheduleFollowsTheIterationsOfATracedStep) {
  const auto schedule = std::make_shared<PiecewiseConstantDecay>(
      std::vector<double>{1, 2}, std::vector<double>{1.0, 0.5, 0.25});
  SGD sgd({.schedule = schedule});
  const Variable w(zeros({}), "w");
  auto train_step =
      kiln::function([&](const Tensor& gradient) { sgd.apply_gradients({gradient}, {w}); });
  // Keras evaluates the schedule at the iterations done so far: 0, 1, 2, 3.
  std::vector<float> after;
  for (int i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(sgd.learning_rate(), schedule->at(i));
    EXPECT_FLOAT_EQ(sgd.current_learning_rate().item<float>(), static_cast<float>(schedule->at(i)));
    train_step(scalar(-1.0));
    after.push_back(w.value().item<float>());
  }
  EXPECT_EQ(after, (std::vector<float>{1.0f, 2.0f, 2.5f, 2.75f}));
  EXPECT_EQ(train_step.stats().traces, 1);
}

TEST(LearningRate, CannotBeSetWhenAScheduleDrivesIt) {
  SGD sgd({.schedule = std::make_shared<ExponentialDecay>(0.1, 10, 0.5), .name = "decaying"});
  try {
    sgd.set_learning_rate(0.01);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("optimizer 'decaying': the learning rate follows the schedule "
                                    "ExponentialDecay and cannot be set"));
  }
}

}  // namespace
}  // namespace kiln::optimizers
