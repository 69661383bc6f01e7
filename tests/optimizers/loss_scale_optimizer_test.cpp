// LossScaleOptimizer: Keras's dynamic loss scaling. Finite gradients are unscaled and applied
// by the inner optimizer and counted, the scale doubling every dynamic_growth_steps of them; a
// step with an inf or NaN gradient changes no weight, slot or iteration count and halves the
// scale; traced steps do the same as eager ones; compile wraps the optimizer under
// mixed_float16 and logs the unscaled loss; the config round-trips through Keras's form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kiln/engine/function/function.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/dtype_policy.h"
#include "kiln/optimizers/adam.h"
#include "kiln/optimizers/loss_scale_optimizer.h"
#include "kiln/optimizers/registry.h"
#include "kiln/optimizers/sgd.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"
#include "tests/test_support/expect_error.h"

namespace kiln::optimizers {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor row(std::vector<float> v) {
  const auto n = static_cast<int64_t>(v.size());
  return from_vector(v, Shape({n}));
}

struct Scaled {
  Variable weight{row({1, 2, 3}), "w"};
  std::shared_ptr<Adam> inner = std::make_shared<Adam>();
  LossScaleOptimizer optimizer{inner, {.initial_scale = 8, .dynamic_growth_steps = 2}};
};

std::vector<std::vector<float>> state_of(const Scaled& s) {
  std::vector<std::vector<float>> out{s.weight.value().to_vector<float>()};
  for (const Variable& v : s.inner->variables())
    out.push_back(ops::cast(v.value(), DType::f32).to_vector<float>());
  return out;
}

TEST(LossScaleOptimizer, FiniteGradientsAreUnscaledAppliedAndCounted) {
  Scaled s;
  Variable reference(row({1, 2, 3}), "w");
  Adam plain;
  s.optimizer.apply_gradients({row({8, -16, 4})}, {s.weight});  // scale 8
  plain.apply_gradients({row({1, -2, 0.5})}, {reference});
  EXPECT_EQ(s.weight.value().to_vector<float>(), reference.value().to_vector<float>());
  EXPECT_EQ(s.optimizer.iterations().value().item<int64_t>(), 1);
  EXPECT_EQ(s.optimizer.step_counter().value().item<int64_t>(), 1);
  EXPECT_EQ(s.optimizer.dynamic_scale().value().item<double>(), 8);
  // The second finite step reaches dynamic_growth_steps: the scale doubles, the count restarts.
  s.optimizer.apply_gradients({row({8, 8, 8})}, {s.weight});
  EXPECT_EQ(s.optimizer.step_counter().value().item<int64_t>(), 0);
  EXPECT_EQ(s.optimizer.dynamic_scale().value().item<double>(), 16);
  EXPECT_EQ(s.optimizer.scale_loss(scalar(0.5)).item<double>(), 8);
}

TEST(LossScaleOptimizer, ANonFiniteGradientSkipsTheStepAndHalvesTheScale) {
  for (const float bad : {kInf, -kInf, std::nanf("")}) {
    Scaled s;
    s.optimizer.apply_gradients({row({8, 8, 8})}, {s.weight});
    const std::vector<std::vector<float>> before = state_of(s);
    s.optimizer.apply_gradients({row({1, bad, 1})}, {s.weight});
    EXPECT_EQ(state_of(s), before) << bad;  // weight, iterations, learning rate, moments
    EXPECT_EQ(s.optimizer.step_counter().value().item<int64_t>(), 0);
    EXPECT_EQ(s.optimizer.dynamic_scale().value().item<double>(), 4);
  }
}

TEST(LossScaleOptimizer, NoGradientAtAllIsTheInnerOptimizersError) {
  Scaled s;
  testing::expect_error([&] { s.optimizer.apply_gradients({Tensor()}, {s.weight}); },
                        "no gradients provided for any variable ('w')");
}

TEST(LossScaleOptimizer, TracedStepsEqualEagerOnes) {
  const std::vector<Tensor> steps{row({8, -16, 4}), row({1, kInf, 1}), row({2, 2, -2}),
                                  row({3, 1, 0})};
  Scaled eager, traced;
  for (const Tensor& g : steps) eager.optimizer.apply_gradients({g}, {eager.weight});
  auto step = function([&](const Tensor& g) {
    traced.optimizer.apply_gradients({g}, {traced.weight});
    return std::vector<Tensor>{};
  });
  traced.optimizer.build({traced.weight});
  for (const Tensor& g : steps) step(g);
  EXPECT_EQ(state_of(traced), state_of(eager));
  for (const auto* o : {&eager.optimizer, &traced.optimizer}) {
    EXPECT_EQ(o->dynamic_scale().value().item<double>(), 8);  // halved once, doubled once
    EXPECT_EQ(o->step_counter().value().item<int64_t>(), 0);
    EXPECT_EQ(o->iterations().value().item<int64_t>(), 3);
  }
}

TEST(LossScaleOptimizer, VariablesAndConfigFollowKeras) {
  Scaled s;
  s.optimizer.build({s.weight});
  std::vector<std::string> names;
  for (const Variable& v : s.optimizer.variables()) names.push_back(v.name());
  EXPECT_THAT(names,
              ::testing::ElementsAre(
                  "loss_scale_optimizer/iteration", "loss_scale_optimizer/learning_rate",
                  "loss_scale_optimizer/step_counter", "loss_scale_optimizer/dynamic_scale",
                  "adam/iteration", "adam/learning_rate", "adam/w_momentum", "adam/w_velocity"));
  const Config config = serialize(s.optimizer);
  EXPECT_EQ(config["class_name"].as_string(), "LossScaleOptimizer");
  EXPECT_EQ(config["config"]["inner_optimizer"]["class_name"].as_string(), "Adam");
  const OptimizerPtr back = from_config(config);
  const auto* loss_scale = dynamic_cast<const LossScaleOptimizer*>(back.get());
  ASSERT_NE(loss_scale, nullptr);
  EXPECT_EQ(loss_scale->inner().class_name(), "Adam");
  EXPECT_EQ(serialize(*back).to_json(), config.to_json());
  testing::expect_error([&] { LossScaleOptimizer twice(back); }, "scales the loss already");
  // Older Keras configs carry the base keys at the values that switch them off.
  Config keys = config["config"];
  keys.set("clipnorm", Config()).set("use_ema", Config(false)).set("dynamic", Config(true));
  Config old = config;
  old.set("config", keys);
  EXPECT_NE(dynamic_cast<const LossScaleOptimizer*>(from_config(old).get()), nullptr);
  keys.set("clipnorm", Config(1.0));
  old.set("config", keys);
  testing::expect_error(
      [&] { (void)from_config(old); },
      "LossScaleOptimizer does not take clipnorm=1.0; set it on the inner_optimizer");
}

TEST(LossScaleOptimizer, CompileWrapsTheOptimizerUnderMixedFloat16) {
  for (const char* policy : {"mixed_float16", "mixed_bfloat16"}) {
    layers::set_global_policy(policy);
    random::set_seed(3);
    Sequential model({layers::Input({4}), layers::Dense(3), layers::Dense(1)});
    layers::set_global_policy("float32");
    model.compile({.optimizer = "sgd", .loss = "mse"});
    const Tensor x = random::normal({16, 4});
    const Tensor y = random::normal({16, 1});
    const double before = model.evaluate(x, y, {.verbose = 0}).at("loss");
    const std::map<std::string, double> logs = model.train_on_batch({x}, {y});
    const bool scaled = std::string(policy) == "mixed_float16";
    EXPECT_EQ(model.trainer().optimizer().class_name(), scaled ? "LossScaleOptimizer" : "SGD");
    // The logged loss is the model's, not the scaled one the gradients come from.
    EXPECT_NEAR(logs.at("loss"), before, 1e-2 * before) << policy;
    // A loss of about 6 times 2**15 overflows float16's gradients: the first steps are skipped
    // while the scale comes down, then training goes on.
    for (int step = 0; step < 8; ++step) model.train_on_batch({x}, {y});
    EXPECT_LT(model.evaluate(x, y, {.verbose = 0}).at("loss"), before) << policy;
    if (scaled) {
      const auto& optimizer = dynamic_cast<const LossScaleOptimizer&>(model.trainer().optimizer());
      EXPECT_LT(optimizer.dynamic_scale().value().item<double>(), 32768);
      EXPECT_GT(optimizer.iterations().value().item<int64_t>(), 0);
      EXPECT_LT(optimizer.iterations().value().item<int64_t>(), 9);
    }
  }
}

}  // namespace
}  // namespace kiln::optimizers
