// compile / fit / evaluate / predict: learning, bounded traces, eager == traced, validation,
// sample and class weights, regularization, dropout in traced steps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/losses/losses.h"
#include "kiln/optimizers/adam.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"
#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

using layers::Dense;
using layers::Input;

// Three Gaussian blobs in 8 dims: an easy 3-class problem.
struct Blobs {
  Tensor x;
  Tensor y;
};
Blobs blobs(int64_t n, uint64_t seed) {
  random::Generator gen(seed);
  const Tensor labels =
      ops::cast(ops::mul(random::uniform({n}, 0, 3, DType::f32, gen), 1.0), DType::i64);
  const Tensor centers = ops::mul(ops::one_hot(labels, 8), 3.0);
  return {random::normal({n, 8}, 0, 1, DType::f32, gen) + centers, labels};
}

std::unique_ptr<Sequential> classifier(uint64_t seed, CompileOptions options) {
  random::set_seed(seed);
  layers::reset_names();
  auto model = std::make_unique<Sequential>(
      std::vector<layers::LayerRef>{Input({8}), Dense(16, {.activation = "relu"}), Dense(3)});
  model->compile(std::move(options));
  return model;
}

LossArg losses_from_logits() {
  return std::make_shared<losses::SparseCategoricalCrossentropy>(
      losses::SparseCategoricalCrossentropyOptions{.from_logits = true});
}

// Adam at 1e-2: at Keras's default 1e-3 this net needs ~20 epochs on 400 samples (Keras too).
CompileOptions adam_sparse_ce() {
  return {.optimizer = std::make_shared<optimizers::Adam>(
              optimizers::OptimizerOptions{.learning_rate = 0.01}),
          .loss = losses_from_logits(),
          .metrics = {"accuracy"}};
}

TEST(Fit, LearnsWithOneTracePerStepAcrossEpochsLastBatchAndValidation) {
  const Blobs data = blobs(500, 1);
  auto model = classifier(7, adam_sparse_ce());
  const History h = model->fit(
      data.x, data.y, {.batch_size = 32, .epochs = 5, .verbose = 0, .validation_split = 0.2});
  ASSERT_EQ(h.epoch.size(), 5u);
  for (const char* key : {"loss", "accuracy", "val_loss", "val_accuracy"})
    ASSERT_EQ(h.history.at(key).size(), 5u) << key;
  EXPECT_LT(h.history.at("loss").back(), h.history.at("loss").front());
  EXPECT_GT(h.history.at("val_accuracy").back(), 0.9);
  // 400 training samples in batches of 32 end with 16; validation 100 ends with 4: still one
  // trace per step, only new plans.
  EXPECT_EQ(model->trainer().train_stats().traces, 1);
  EXPECT_EQ(model->trainer().test_stats().traces, 1);
  EXPECT_EQ(model->trainer().train_stats().plans, 2);
  const auto scores = model->evaluate(data.x, data.y, {.verbose = 0});
  EXPECT_GT(scores.at("accuracy"), 0.9);
  EXPECT_TRUE(scores.contains("loss"));
}

TEST(Fit, PredictInALoopOverBatchSizesTracesOnce) {
  const Blobs data = blobs(64, 2);
  auto model = classifier(3, adam_sparse_ce());
  for (const int64_t n : {1, 5, 17, 64, 3, 40}) {
    const Tensor out = model->predict(ops::slice(data.x, {0, 0}, {n, 8}), {.verbose = 0});
    EXPECT_EQ(out.shape(), Shape({n, 3}));
  }
  const Tensor big = model->predict(data.x, {.batch_size = 10, .verbose = 0});
  EXPECT_EQ(big.shape(), Shape({64, 3}));
  EXPECT_EQ(model->trainer().predict_stats().traces, 1);
}

void expect_same_weights(const Model& x, const Model& y) {
  const auto wx = x.get_weights();
  const auto wy = y.get_weights();
  ASSERT_EQ(wx.size(), wy.size());
  for (size_t i = 0; i < wx.size(); ++i) {
    const auto a = wx[i].to_vector<float>();
    const auto b = wy[i].to_vector<float>();
    for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-5) << i << ":" << k;
  }
}

TEST(Fit, EagerAndTracedTrainingGiveTheSameWeights) {
  const Blobs data = blobs(96, 4);
  auto traced = classifier(11, adam_sparse_ce());
  CompileOptions eager_options = adam_sparse_ce();
  eager_options.run_eagerly = true;
  auto eager = classifier(11, eager_options);
  const FitOptions fit{.batch_size = 20, .epochs = 2, .verbose = 0, .shuffle = false};
  const History ht = traced->fit(data.x, data.y, fit);
  const History he = eager->fit(data.x, data.y, fit);
  expect_same_weights(*traced, *eager);
  EXPECT_NEAR(ht.history.at("loss")[1], he.history.at("loss")[1], 1e-5);
  EXPECT_EQ(eager->trainer().train_stats().traces, 0);
}

TEST(Fit, StepsPerExecutionRunsGroupsInOneCallWithTheSameResult) {
  const Blobs data = blobs(100, 8);  // batches of 16: six full ones and one of 4
  auto one = classifier(13, adam_sparse_ce());
  CompileOptions grouped_options = adam_sparse_ce();
  grouped_options.steps_per_execution = 4;
  auto grouped = classifier(13, grouped_options);
  std::vector<int64_t> batch_ends;
  auto record = std::make_shared<LambdaCallback>(LambdaCallbackHooks{
      .on_train_batch_end = [&](int64_t batch, const Logs&) { batch_ends.push_back(batch); }});
  const FitOptions fit{.batch_size = 16, .epochs = 2, .verbose = 0, .shuffle = false};
  const History h1 = one->fit(data.x, data.y, fit);
  FitOptions grouped_fit = fit;
  grouped_fit.callbacks = {record};
  const History h4 = grouped->fit(data.x, data.y, grouped_fit);
  expect_same_weights(*one, *grouped);
  EXPECT_NEAR(h1.history.at("loss")[1], h4.history.at("loss")[1], 1e-5);
  // Per epoch: batches 0-3 in one call, then the last three (a short group) one by one; the
  // callbacks hear of each call once, by its last batch.
  EXPECT_EQ(batch_ends, (std::vector<int64_t>{3, 6, 3, 6}));
}

TEST(Fit, ClassWeightsScaleTheLoss) {
  const Blobs data = blobs(64, 5);
  auto sgd_zero = [] {
    auto opt = optimizers::get("sgd");
    opt->set_learning_rate(0.0);
    return CompileOptions{.optimizer = opt, .loss = losses_from_logits()};
  };
  auto plain = classifier(9, sgd_zero());
  auto weighted = classifier(9, sgd_zero());
  const History a = plain->fit(data.x, data.y, {.batch_size = 16, .verbose = 0});
  const History b = weighted->fit(
      data.x, data.y,
      {.batch_size = 16, .verbose = 0, .class_weight = {{0, 2.0}, {1, 2.0}, {2, 2.0}}});
  EXPECT_NEAR(b.history.at("loss")[0], 2 * a.history.at("loss")[0], 1e-5);
}

// Keras weighs only the loss and weighted_metrics by sample weights; `metrics` stay unweighted,
// and a weighted metric of a name already logged becomes weighted_<name>.
TEST(Fit, SampleWeightsReachWeightedMetricsOnly) {
  const Blobs data = blobs(64, 7);
  auto model = classifier(4, {.loss = losses_from_logits(),
                              .metrics = {"accuracy", "accuracy"},
                              .weighted_metrics = {"accuracy"}});
  // Only the first half counts for the weighted metric.
  const Tensor weight = ops::cast(ops::less(arange(64), 32), DType::f32);
  const auto logs =
      model->evaluate(data.x, data.y, {.batch_size = 16, .verbose = 0, .sample_weight = weight});
  const Tensor correct = ops::cast(
      ops::equal(ops::argmax(model->predict(data.x, {.verbose = 0}), 1), data.y), DType::f32);
  const double all = ops::mean(correct).item<double>();
  const double first_half = ops::mean(ops::slice(correct, {0}, {32})).item<double>();
  ASSERT_NE(all, first_half);  // the data must tell the two apart
  EXPECT_NEAR(logs.at("accuracy"), all, 1e-6);
  EXPECT_NEAR(logs.at("accuracy_1"), all, 1e-6);
  EXPECT_NEAR(logs.at("weighted_accuracy"), first_half, 1e-6);
}

TEST(Fit, RegularizationPenaltyJoinsTheLoss) {
  const Blobs data = blobs(32, 6);
  random::set_seed(1);
  Sequential plain({Input({8}), Dense(3)});
  Sequential penalized({Input({8}), Dense(3, {.kernel_regularizer = regularizers::l2(0.5)})});
  penalized.set_weights(plain.get_weights());
  for (Sequential* m : {&plain, &penalized}) m->compile({.loss = losses_from_logits()});
  const double base = plain.evaluate(data.x, data.y, {.verbose = 0}).at("loss");
  const double with = penalized.evaluate(data.x, data.y, {.verbose = 0}).at("loss");
  const double penalty = ops::sum(ops::square(plain.weights()[0].value())).item<double>() * 0.5;
  EXPECT_NEAR(with - base, penalty, 1e-4);
}

// Keras rounds float labels to their class (0.9999 is class 1) and refuses class_weight for
// several outputs.
TEST(Fit, ClassWeightsRoundFloatLabelsAndNeedOneOutput) {
  random::set_seed(3);
  auto model = [] {
    auto m = std::make_unique<Sequential>(std::vector<layers::LayerRef>{Input({2}), Dense(1)});
    auto opt = optimizers::get("sgd");
    opt->set_learning_rate(0.0);
    m->compile({.optimizer = opt, .loss = "mse"});
    return m;
  };
  const Tensor x = random::uniform({4, 2});
  const Tensor y = from_vector(std::vector<float>{0.9999f, 0.2f, 1.2f, 0.0f}, {4, 1});
  auto a = model();
  auto b = model();
  b->set_weights(a->get_weights());
  const FitOptions fit{.batch_size = 4, .verbose = 0, .shuffle = false};
  FitOptions by_class = fit;
  by_class.class_weight = {{1, 3.0}};
  FitOptions by_sample = fit;
  by_sample.sample_weight = from_vector(std::vector<float>{3, 1, 3, 1}, {4});
  EXPECT_NEAR(a->fit(x, y, by_class).history.at("loss")[0],
              b->fit(x, y, by_sample).history.at("loss")[0], 1e-6);
  EXPECT_THAT(testing::error_of([&] {
                a->fit({x}, {y, y}, by_class);
              }),
              ::testing::HasSubstr("class_weight works with one output, the data has 2 targets"));
}

// predict runs an uncompiled model, as Keras's does, without compiling it: fit still asks for
// compile() rather than for a loss.
TEST(Fit, PredictLeavesAnUncompiledModelUncompiled) {
  Sequential model({Input({2}), Dense(1)});
  (void)model.predict(ones({3, 2}), {.verbose = 0});
  EXPECT_FALSE(model.compiled());
  EXPECT_THAT(testing::error_of([&] {
                model.fit(ones({3, 2}), ones({3, 1}), {.verbose = 0});
              }),
              ::testing::HasSubstr("is not compiled: call compile() before fit"));
  model.compile({.optimizer = "sgd", .loss = "mse"});
  EXPECT_TRUE(model.compiled());
}

// As in Keras, only trainable weights are penalized, and a shared layer's once.
TEST(Fit, RegularizationSkipsFrozenWeightsAndCountsSharedLayersOnce) {
  random::set_seed(2);
  auto shared =
      std::make_shared<Dense>(8, layers::DenseOptions{.kernel_regularizer = regularizers::l2(0.5)});
  auto inner = std::make_shared<Sequential>(std::vector<layers::LayerRef>{Input({8}), shared});
  Sequential outer({Input({8}), inner, shared});
  const double penalty = ops::sum(ops::square(shared->weights()[0].value())).item<double>() * 0.5;
  EXPECT_NEAR(outer.regularization_loss().item<double>(), penalty, 1e-5);
  shared->set_trainable(false);
  EXPECT_FALSE(outer.regularization_loss().defined());
}

TEST(Fit, DropoutDrawsFreshMasksPerTracedStepWithoutRetracing) {
  random::set_seed(3);
  Sequential model({Input({32}), layers::Dropout(0.5), Dense(1, {.kernel_initializer = "ones"})});
  model.compile({.optimizer = optimizers::get("sgd"), .loss = "mse"});
  model.trainer().optimizer().set_learning_rate(0.0);
  const Tensor x = ones({4, 32});
  const Tensor y = zeros({4, 1});
  const double first = model.train_on_batch({x}, {y}).at("loss");
  model.trainer().reset_metrics();
  const double second = model.train_on_batch({x}, {y}).at("loss");
  EXPECT_NE(first, second);
  EXPECT_EQ(model.trainer().train_stats().traces, 1);
  // Inference is the identity: 32 ones through a ones kernel.
  EXPECT_FLOAT_EQ(model.predict(x, {.verbose = 0}).to_vector<float>()[0], 32.0f);
}

}  // namespace
}  // namespace kiln
