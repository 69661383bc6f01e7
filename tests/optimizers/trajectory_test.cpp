// Ten steps of every optimizer and option combination against Keras (eagerly and traced), from
// the configs Keras serialized (scripts/golden/generate_optimizer_goldens.py).
#include <gtest/gtest.h>

#include "kiln/engine/function/function.h"
#include "kiln/optimizers/registry.h"
#include "tests/optimizers/goldens.h"

namespace kiln::optimizers::testing {
namespace {

constexpr double kKerasTolerance = 1e-5;   // relative, against Keras's float32 values
constexpr double kTracedTolerance = 1e-6;  // relative, traced against eager kiln

TEST(OptimizerTrajectories, MatchKerasEagerly) {
  ASSERT_EQ(kTrajectoryGoldens.size(), 23u);
  for (const TrajectoryGolden& g : kTrajectoryGoldens) {
    SCOPED_TRACE(g.name);
    const OptimizerPtr optimizer = from_config(Config::from_json(g.keras_config));
    const Weights weights;
    for (size_t step = 0; step < g.kernel.size(); ++step) {
      optimizer->apply_gradients(gradients_at(step), weights.list());
      const std::string what = "step " + std::to_string(step + 1);
      expect_close(weights.kernel.value().to_vector<double>(), g.kernel[step], kKerasTolerance,
                   what + " kernel");
      expect_close(weights.bias.value().to_vector<double>(), g.bias[step], kKerasTolerance,
                   what + " bias");
    }
    EXPECT_EQ(optimizer->iterations().value().item<int64_t>(), 10);
  }
}

TEST(OptimizerTrajectories, TracedStepsMatchEagerWithOneTrace) {
  for (const TrajectoryGolden& g : kTrajectoryGoldens) {
    SCOPED_TRACE(g.name);
    const Config config = Config::from_json(g.keras_config);
    const OptimizerPtr eager = from_config(config);
    const OptimizerPtr traced = from_config(config);
    const Weights eager_weights;
    const Weights traced_weights;
    traced->build(traced_weights.list());
    auto train_step = kiln::function([&](const std::vector<Tensor>& grads) {
      traced->apply_gradients(grads, traced_weights.list());
    });
    for (size_t step = 0; step < g.kernel.size(); ++step) {
      train_step(gradients_at(step));
      eager->apply_gradients(gradients_at(step), eager_weights.list());
      const std::string what = "step " + std::to_string(step + 1);
      expect_close(traced_weights.kernel.value().to_vector<double>(),
                   eager_weights.kernel.value().to_vector<double>(), kTracedTolerance,
                   what + " kernel");
      expect_close(traced_weights.bias.value().to_vector<double>(),
                   eager_weights.bias.value().to_vector<double>(), kTracedTolerance,
                   what + " bias");
    }
    // Every slot, the iterations and the learning rate ended where the eager ones did.
    const std::vector<Variable> traced_state = traced->variables();
    const std::vector<Variable> eager_state = eager->variables();
    ASSERT_EQ(traced_state.size(), eager_state.size());
    for (size_t i = 0; i < traced_state.size(); ++i)
      expect_close(traced_state[i].value().to_vector<double>(),
                   eager_state[i].value().to_vector<double>(), kTracedTolerance,
                   traced_state[i].name());
    EXPECT_EQ(train_step.stats().traces, 1);
  }
}

TEST(OptimizerTrajectories, BuildingInsideTheFirstTraceWorks) {
  const TrajectoryGolden& g = kTrajectoryGoldens.at(4);  // Adam with amsgrad: three slot kinds
  ASSERT_STREQ(g.name, "adam_amsgrad");
  const OptimizerPtr optimizer = from_config(Config::from_json(g.keras_config));
  const Weights weights;
  auto train_step = kiln::function(
      [&](const std::vector<Tensor>& grads) { optimizer->apply_gradients(grads, weights.list()); });
  for (size_t step = 0; step < g.kernel.size(); ++step) train_step(gradients_at(step));
  expect_close(weights.kernel.value().to_vector<double>(), g.kernel.back(), kKerasTolerance,
               "kernel");
  expect_close(weights.bias.value().to_vector<double>(), g.bias.back(), kKerasTolerance, "bias");
  EXPECT_EQ(train_step.stats().traces, 1);
}

}  // namespace
}  // namespace kiln::optimizers::testing
