// Optimizers by name and config: Keras's identifiers and serialized configs, round trips,
// errors with suggestions, and user optimizers registered by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "kiln/optimizers/adam.h"
#include "kiln/optimizers/registry.h"
#include "tests/optimizers/goldens.h"
#include "tests/test_support/expect_error.h"

namespace kiln::optimizers::testing {
namespace {

using kiln::testing::expect_error;
using ::testing::ElementsAre;

TEST(OptimizerRegistry, IdentifiersAndClassNamesInAnyCase) {
  EXPECT_THAT(known_names(),
              ::testing::IsSupersetOf({"adagrad", "adam", "adamw", "nadam", "rmsprop", "sgd"}));
  for (const auto& [name, class_name] :
       std::vector<std::pair<std::string, std::string>>{{"sgd", "SGD"},
                                                        {"Adam", "Adam"},
                                                        {"ADAMW", "AdamW"},
                                                        {"RMSprop", "RMSprop"},
                                                        {"rmsprop", "RMSprop"},
                                                        {"adagrad", "Adagrad"},
                                                        {"Nadam", "Nadam"}}) {
    EXPECT_EQ(get(name)->class_name(), class_name) << name;
    EXPECT_EQ(from_config(Config(name))->class_name(), class_name) << name;
  }
}

TEST(OptimizerRegistry, DefaultsAreKeras) {
  ASSERT_EQ(kDefaultConfigGoldens.size(), 6u);
  for (const DefaultConfigGolden& g : kDefaultConfigGoldens) {
    const Config keras = without_keras_module_keys(Config::from_json(g.keras_config));
    EXPECT_EQ(serialize(*get(g.identifier)), keras)
        << g.identifier << ": " << serialize(*get(g.identifier)).to_json();
  }
}

TEST(OptimizerRegistry, ConfigRoundTripForEveryCase) {
  for (const TrajectoryGolden& g : kTrajectoryGoldens) {
    // Keras's own serialized form (with "module" and "registered_name") reads as is.
    const OptimizerPtr optimizer = from_config(Config::from_json(g.keras_config));
    const Config keras = without_keras_module_keys(Config::from_json(g.keras_config));
    EXPECT_EQ(serialize(*optimizer), keras) << g.name << ": " << serialize(*optimizer).to_json();
    EXPECT_EQ(serialize(*from_config(serialize(*optimizer))), keras) << g.name;
  }
}

TEST(OptimizerRegistry, ConstructorsAndConfigsAgree) {
  const Adam adam({.learning_rate = 0.01, .clipnorm = 1.0}, {.amsgrad = true});
  const OptimizerPtr copy = from_config(serialize(adam));
  EXPECT_EQ(copy->class_name(), "Adam");
  EXPECT_TRUE(dynamic_cast<const Adam&>(*copy).adam_options().amsgrad);
  EXPECT_EQ(copy->options().clipnorm, 1.0);
  EXPECT_FLOAT_EQ(static_cast<float>(copy->learning_rate()), 0.01f);
  EXPECT_EQ(AdamW().options().weight_decay, AdamW::kDefaultWeightDecay);
}

TEST(OptimizerRegistry, ErrorsSuggestTheClosestNames) {
  expect_error([] { get("adm"); }, "unknown optimizer 'adm'; did you mean 'adam'?");
  expect_error([] { from_config(Config::from_json(R"({"class_name": "RMSProb"})")); },
               "unknown optimizer 'RMSProb'; did you mean 'rmsprop'?");
  expect_error(
      [] { from_config(Config::from_json(R"({"class_name": "Adam", "config": {"beta1": 0.8}})")); },
      "unknown key 'beta1' for optimizer Adam (did you mean 'beta_1'?)");
  expect_error(
      [] {
        from_config(Config::from_json(R"({"class_name": "SGD", "config": {"learning_rte": 1}})"));
      },
      "unknown key 'learning_rte' for optimizer SGD (did you mean 'learning_rate'?)");
  expect_error([] { from_config(Config::from_json(R"({"class_nam": "SGD"})")); },
               "unknown key 'class_nam' for an optimizer (did you mean 'class_name'?)");
  expect_error(
      [] {
        from_config(Config::from_json(R"({"class_name": "SGD", "config": {"use_ema": true}})"));
      },
      "optimizer SGD: 'use_ema' = true is not supported by kiln; only false is (kiln has no "
      "weight averaging)");
  expect_error(
      [] {
        from_config(Config::from_json(R"({"class_name": "Adam", "config": {"learning_rate":
            {"class_name": "CosineDecay", "config": {"initial_learning_rate": 0.1}}}})"));
      },
      "missing key 'decay_steps'");
}

// A user optimizer: steps against the sign of the gradient.
class SignDescent : public Optimizer {
 public:
  explicit SignDescent(OptimizerOptions options)
      : Optimizer(with_default_name(std::move(options), "sign_descent")) {}
  std::string class_name() const override { return "SignDescent"; }

 protected:
  std::vector<SlotGroup> slot_groups() const override { return {}; }
  void update_step(const Tensor& gradient, const Variable& variable, const std::vector<Variable>&,
                   const Tensor& lr, const Tensor&) override {
    variable.assign_sub(ops::sign(gradient) * lr);
  }
};

TEST(OptimizerRegistry, UserOptimizersWorkByName) {
  register_optimizer("SignDescent", [](const Config& config) {
    return std::make_shared<SignDescent>(options_from_config(config, "SignDescent", {}, 0.5));
  });
  const OptimizerPtr optimizer = get("signdescent");
  const Variable w(zeros({2}), "w");
  optimizer->apply_gradients({tensor({3.0f, -0.1f})}, {w});
  EXPECT_THAT(w.value().to_vector<float>(), ElementsAre(-0.5f, 0.5f));
  const Config config = serialize(*optimizer);
  EXPECT_EQ(config["class_name"].as_string(), "SignDescent");
  EXPECT_EQ(serialize(*from_config(config)), config);
  expect_error([] { register_optimizer("signDescent", nullptr); }, "no factory");
  expect_error([] { register_optimizer("ADAM", Adam::from_config); },
               "optimizer 'ADAM' is already registered");
}

}  // namespace
}  // namespace kiln::optimizers::testing
