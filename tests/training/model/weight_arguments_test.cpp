// The arguments that shape a layer's weights and losses act in training: initializer arguments
// change the drawn values, constraints hold after every update (eager and traced), and activity
// regularizers add their penalty to the loss that fit and evaluate report.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/registry.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

using layers::Dense;
using layers::Input;

double mean_of(const Variable& v) {
  return ops::mean(ops::cast(v.value(), DType::f64)).item<double>();
}
double stddev_of(const Variable& v) {
  return std::sqrt(ops::variance(ops::cast(v.value(), DType::f64)).item<double>());
}

// The issue's run-file case: Keras's serialized initializers with arguments, then the run-file
// form {RandomNormal: {stddev: 0.02}}.
TEST(WeightArguments, InitializerArgumentsChangeTheDrawnValues) {
  random::set_seed(4);
  const layers::LayerPtr keras_form = layers::deserialize_layer(Config::from_json(R"({
      "class_name": "Dense", "config": {"units": 400,
      "kernel_initializer": {"class_name": "RandomNormal",
                             "config": {"mean": 3.0, "stddev": 0.001}},
      "bias_initializer": {"class_name": "Constant", "config": {"value": 7.0}}}})"));
  keras_form->build_from({{-1, 300}});
  const auto& dense = dynamic_cast<const Dense&>(*keras_form);
  EXPECT_NEAR(mean_of(dense.kernel()), 3.0, 1e-4);
  EXPECT_NEAR(stddev_of(dense.kernel()), 0.001, 5e-5);
  EXPECT_EQ(ops::min(dense.bias().value()).item<double>(), 7.0);
  EXPECT_EQ(ops::max(dense.bias().value()).item<double>(), 7.0);

  const layers::LayerPtr run_form = layers::deserialize_layer(Config::from_json(R"({
      "class_name": "Dense", "config": {"units": 400,
      "kernel_initializer": {"RandomNormal": {"stddev": 0.02}},
      "bias_initializer": {"RandomUniform": {"minval": 1.0, "maxval": 2.0}}}})"));
  run_form->build_from({{-1, 300}});
  const auto& second = dynamic_cast<const Dense&>(*run_form);
  EXPECT_NEAR(mean_of(second.kernel()), 0.0, 1e-3);
  EXPECT_NEAR(stddev_of(second.kernel()), 0.02, 1e-3);
  EXPECT_GE(ops::min(second.bias().value()).item<double>(), 1.0);
  EXPECT_LE(ops::max(second.bias().value()).item<double>(), 2.0);

  // Both write their arguments back, in Keras's form.
  const Config written = layers::serialize_layer(*keras_form)["config"];
  EXPECT_EQ(written["kernel_initializer"]["config"]["mean"].as_double(), 3.0);
  EXPECT_EQ(written["kernel_initializer"]["config"]["stddev"].as_double(), 0.001);
  EXPECT_EQ(written["bias_initializer"]["config"]["value"].as_double(), 7.0);
  EXPECT_EQ(layers::serialize_layer(*run_form)["config"]["kernel_initializer"]["config"]["stddev"]
                .as_double(),
            0.02);
}

// A seeded initializer draws the same weights whatever the global seed (Keras's int seeds).
TEST(WeightArguments, SeededInitializersIgnoreTheGlobalSeed) {
  auto kernel = [](uint64_t global_seed) {
    random::set_seed(global_seed);
    Dense d(5, {.kernel_initializer = initializers::glorot_uniform(11)});
    d.build_from({{-1, 6}});
    return d.kernel().value().to_vector<float>();
  };
  EXPECT_EQ(kernel(1), kernel(2));
}

Tensor regression_x() {
  random::Generator gen(9);
  return random::normal({64, 6}, 0, 1, DType::f32, gen);
}
Tensor regression_y() {
  random::Generator gen(10);
  return random::normal({64, 4}, 0, 3, DType::f32, gen);
}

// A large SGD step would push the kernel far outside the constraint; after it (traced and
// eager) every column norm is within MaxNorm's bound and NonNeg's bias has no negative entry.
TEST(WeightArguments, ConstraintsHoldAfterEveryUpdate) {
  for (const bool eager : {false, true}) {
    SCOPED_TRACE(eager ? "eager" : "traced");
    random::set_seed(5);
    auto dense = std::make_shared<Dense>(
        4, layers::DenseOptions{.kernel_constraint = constraints::max_norm(0.5),
                                .bias_constraint = constraints::non_neg()});
    Sequential model({Input({6}), dense});
    auto sgd = optimizers::get("sgd");
    sgd->set_learning_rate(1.0);
    model.compile({.optimizer = sgd, .loss = "mse", .run_eagerly = eager});
    model.fit(regression_x(), regression_y(), {.batch_size = 16, .epochs = 2, .verbose = 0});
    const Tensor norms = ops::sqrt(ops::sum(ops::square(dense->kernel().value()), {0}));
    EXPECT_LE(ops::max(norms).item<double>(), 0.5 + 1e-5);
    EXPECT_GT(ops::max(norms).item<double>(), 0.45);  // pushed to the bound, not shrunk to zero
    EXPECT_GE(ops::min(dense->bias().value()).item<double>(), 0.0);
  }
}

// Keras 3 adds activity_regularizer(output) to the loss for every call (not divided by the batch
// size): evaluate reports the compiled loss plus 0.25 * sum(output^2).
TEST(WeightArguments, ActivityRegularizerAddsItsPenaltyToTheLoss) {
  random::set_seed(6);
  auto plain_dense = std::make_shared<Dense>(4);
  Sequential plain({Input({6}), plain_dense});
  Sequential penalized({Input({6}), Dense(4, {.activity_regularizer = regularizers::l2(0.25)})});
  penalized.set_weights(plain.get_weights());
  for (Sequential* m : {&plain, &penalized}) m->compile({.loss = "mse"});
  const Tensor x = regression_x();
  const Tensor y = regression_y();
  const double base = plain.evaluate(x, y, {.batch_size = 64, .verbose = 0}).at("loss");
  const double with = penalized.evaluate(x, y, {.batch_size = 64, .verbose = 0}).at("loss");
  const double penalty = 0.25 * ops::sum(ops::square(plain.predict(x))).item<double>();
  EXPECT_NEAR(with - base, penalty, 1e-3 * penalty);

  // Training pulls the outputs toward zero harder than the plain loss alone.
  auto sgd = [] {
    auto o = optimizers::get("sgd");
    o->set_learning_rate(0.001);
    return o;
  };
  plain.compile({.optimizer = sgd(), .loss = "mse"});
  penalized.compile({.optimizer = sgd(), .loss = "mse"});
  plain.fit(x, y, {.batch_size = 64, .epochs = 3, .verbose = 0, .shuffle = false});
  penalized.fit(x, y, {.batch_size = 64, .epochs = 3, .verbose = 0, .shuffle = false});
  EXPECT_LT(ops::sum(ops::square(penalized.predict(x))).item<double>(),
            ops::sum(ops::square(plain.predict(x))).item<double>());
}

}  // namespace
}  // namespace kiln
