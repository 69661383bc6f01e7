// Learning rates and schedule parameters no run can train with (NaN, infinite, negative) are
// refused when given, in C++ as in run files, naming the optimizer or schedule and the value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "kiln/optimizers/adam.h"
#include "kiln/optimizers/schedules.h"
#include "kiln/optimizers/sgd.h"
#include "tests/test_support/expect_error.h"

namespace kiln::optimizers {
namespace {

using testing::expect_error;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(UntrainableValues, AnOptimizersLearningRateMustBeFiniteAndNotNegative) {
  expect_error([] { Adam({.learning_rate = kNan}); },
               "optimizer 'adam': learning_rate must be a finite number, got nan");
  expect_error([] { SGD({.learning_rate = kInf}); },
               "optimizer 'sgd': learning_rate must be a finite number, got inf");
  expect_error([] { SGD({.learning_rate = -0.1}); }, "learning_rate must be >= 0, got -0.1");
  EXPECT_NO_THROW(SGD({.learning_rate = 0.0}));  // frozen, as Keras allows
}

TEST(UntrainableValues, SettingTheLearningRateChecksItToo) {
  SGD sgd({.learning_rate = 0.1});
  expect_error([&] { sgd.set_learning_rate(kNan); }, "learning_rate must be a finite number");
  EXPECT_FLOAT_EQ(static_cast<float>(sgd.learning_rate()), 0.1f);  // unchanged (a float32)
}

TEST(UntrainableValues, ScheduleParametersMustBeFinite) {
  expect_error([] { ExponentialDecay(kNan, 100, 0.9); },
               "ExponentialDecay: initial_learning_rate must be a finite number, got nan");
  expect_error([] { ExponentialDecay(0.1, kInf, 0.9); },
               "ExponentialDecay: decay_steps must be a finite number, got inf");
  expect_error([] { InverseTimeDecay(0.1, 100, -1); },
               "InverseTimeDecay: decay_rate must be >= 0, got -1");
  expect_error(
      [] {
        PiecewiseConstantDecay({10, kInf}, {0.1, 0.01, 0.001});
      },
      "PiecewiseConstantDecay: a boundary must be a finite number, got inf");
  expect_error(
      [] {
        PiecewiseConstantDecay({10}, {0.1, kNan});
      },
      "PiecewiseConstantDecay: a value must be a finite number, got nan");
  expect_error([] { CosineDecay(0.1, 100, kNan); }, "CosineDecay: alpha must be a finite number");
  expect_error([] { CosineDecay(0.1, 100, 0, "c", -0.5, 10); },
               "CosineDecay: warmup_target must be >= 0, got -0.5");
}

}  // namespace
}  // namespace kiln::optimizers
