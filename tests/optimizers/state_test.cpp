// Optimizer state: variables() in Keras's checkpoint order with Keras's names, building, the
// iterations count, skipped gradients and misuse errors that name the variable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/optimizers/adagrad.h"
#include "kiln/optimizers/adam.h"
#include "kiln/optimizers/registry.h"
#include "kiln/optimizers/sgd.h"
#include "tests/optimizers/goldens.h"
#include "tests/test_support/expect_error.h"

namespace kiln::optimizers::testing {
namespace {

using kiln::testing::expect_error;
using ::testing::ElementsAre;

std::vector<std::string> names(const std::vector<Variable>& variables) {
  std::vector<std::string> out;
  for (const Variable& v : variables) out.push_back(v.name());
  return out;
}

TEST(OptimizerState, VariablesFollowKerasOrderAndNames) {
  for (const TrajectoryGolden& g : kTrajectoryGoldens) {
    const OptimizerPtr optimizer = from_config(Config::from_json(g.keras_config));
    optimizer->build(Weights().list());
    std::vector<std::string> expected = g.variable_paths;
    // Keras leaves Nadam's u_product unnamed ("variable"); kiln names it.
    if (optimizer->class_name() == "Nadam") expected.back() = std::string(g.name) + "/u_product";
    EXPECT_EQ(names(optimizer->variables()), expected) << g.name;
    for (const Variable& v : optimizer->variables()) EXPECT_FALSE(v.trainable()) << v.name();
  }
}

TEST(OptimizerState, BuildingTwiceIsANoOpAndNewVariablesAddSlots) {
  Adam adam;
  const Weights weights;
  adam.build(weights.list());
  const std::vector<Variable> first = adam.variables();
  adam.build(weights.list());
  adam.build({weights.bias});
  ASSERT_EQ(adam.variables().size(), first.size());
  for (size_t i = 0; i < first.size(); ++i)
    EXPECT_EQ(adam.variables()[i].state(), first[i].state()) << first[i].name();
  const Variable extra(zeros({4}), "extra");
  adam.build({extra});
  EXPECT_THAT(names(adam.variables()),
              ElementsAre("adam/iteration", "adam/learning_rate", "adam/dense_kernel_momentum",
                          "adam/dense_kernel_velocity", "adam/bias_momentum", "adam/bias_velocity",
                          "adam/extra_momentum", "adam/extra_velocity"));
}

TEST(OptimizerState, SlotsStartAtKerasInitialValues) {
  Adagrad adagrad({}, {.initial_accumulator_value = 0.25});
  const Variable w(ones({2, 2}), "w");
  adagrad.build({w});
  const Variable accumulator = adagrad.variables().back();
  EXPECT_EQ(accumulator.name(), "adagrad/w_accumulator");
  EXPECT_EQ(accumulator.shape(), w.shape());
  EXPECT_THAT(accumulator.value().to_vector<float>(), ElementsAre(0.25f, 0.25f, 0.25f, 0.25f));
  EXPECT_EQ(adagrad.iterations().dtype(), DType::i64);
}

TEST(OptimizerState, UndefinedGradientsSkipTheirVariables) {
  SGD sgd({.learning_rate = 0.5});
  const Weights weights;
  sgd.apply_gradients({gradients_at(0)[0], Tensor()}, weights.list());
  EXPECT_EQ(weights.bias.value().to_vector<double>(), kInitialBias);
  EXPECT_NE(weights.kernel.value().to_vector<double>(), kInitialKernel);
  EXPECT_EQ(sgd.iterations().value().item<int64_t>(), 1);
  expect_error(
      [&] {
        sgd.apply_gradients({Tensor(), Tensor()}, weights.list());
      },
      "optimizer 'sgd': no gradients provided for any variable ('dense/kernel', 'bias')");
  EXPECT_EQ(sgd.iterations().value().item<int64_t>(), 1);
}

TEST(OptimizerState, MisuseNamesTheOptimizerAndVariable) {
  const Weights weights;
  Adam adam({.name = "opt"});
  expect_error([&] { adam.apply_gradients({zeros({3})}, weights.list()); },
               "optimizer 'opt': 1 gradients for 2 variables");
  expect_error(
      [&] {
        adam.apply_gradients({zeros({3, 2}), zeros({3})}, weights.list());
      },
      "optimizer 'opt': the gradient for variable 'dense/kernel' is float32[3, 2] but "
      "the variable is float32[2, 3]");
  expect_error([] { Adam({.clipnorm = 1.0, .clipvalue = 0.5}); },
               "optimizer 'adam': only one of clipnorm, clipvalue and global_clipnorm can be "
               "set, got clipnorm=1.0, clipvalue=0.5, global_clipnorm=null");
  expect_error([] { SGD({}, {.momentum = 1.5}); },
               "optimizer 'sgd': momentum must be in [0, 1], got 1.5");
}

}  // namespace
}  // namespace kiln::optimizers::testing
