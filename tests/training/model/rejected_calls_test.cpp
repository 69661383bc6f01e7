// A rejected call leaves nothing behind: for each public entry point, a model that first got a
// wrongly shaped call (refused with a message naming the call, the input and both shapes) then
// gives the same results for the correct calls as a fresh model: no signature, trace, weights,
// optimizer slots or random draws are kept from the refused call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/reshaping/reshape.h"
#include "kiln/losses/losses.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"
#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using ModelFactory = std::function<std::unique_ptr<Sequential>()>;
// A call on a model, returning what the comparison reads (outputs, logs, weights).
using Call = std::function<std::vector<double>(Sequential&)>;

struct Data {
  random::Generator gen{11};
  Tensor x = random::uniform({8, 4}, -1, 1, DType::f32, gen);
  Tensor y = random::uniform({8, 2}, -1, 1, DType::f32, gen);
  Tensor wide_x = random::uniform({8, 5}, -1, 1, DType::f32, gen);
  Tensor wide_y = random::uniform({8, 3}, -1, 1, DType::f32, gen);
};

std::unique_ptr<Sequential> declared() {
  random::set_seed(1);
  auto model = std::make_unique<Sequential>(
      std::vector<layers::LayerRef>{layers::Input({4}), layers::Dense(3, {.activation = "relu"}),
                                    layers::Dense(2)},
      "declared");
  model->compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  return model;
}

// No Input: the first call's shapes build it (a refused call must not).
std::unique_ptr<Sequential> undeclared() {
  random::set_seed(1);
  auto model = std::make_unique<Sequential>(
      std::vector<layers::LayerRef>{layers::Dense(6), layers::Reshape({3, 2})}, "undeclared");
  model->compile({.optimizer = "adam", .loss = "mse"});
  return model;
}

std::vector<double> values_of(const std::vector<Tensor>& tensors) {
  std::vector<double> out;
  for (const Tensor& t : tensors)
    for (const double v : t.to_vector<double>()) out.push_back(v);
  return out;
}

std::vector<double> values_of(const std::vector<double>& values) {
  return values;
}

std::vector<double> values_of(const std::map<std::string, double>& logs) {
  std::vector<double> out;
  for (const auto& [name, value] : logs) out.push_back(value);
  return out;
}

// What a model is after its calls: its weights, its optimizer's state and its predictions.
std::vector<double> state_of(Sequential& model, const Tensor& x) {
  std::vector<double> out = values_of(model.get_weights());
  if (model.compiled())
    for (const Variable& v : model.trainer().optimizer().variables())
      for (const double d : v.value().to_vector<double>()) out.push_back(d);
  for (const double d : model.predict_on_batch({x})[0].to_vector<double>()) out.push_back(d);
  return out;
}

// The refused call's message holds each of `parts`; then `good` (and a training step where the
// model is compiled) gives what it gives on a fresh model.
void expect_refused_then_like_fresh(const ModelFactory& make,
                                    const std::function<void(Sequential&)>& bad,
                                    const std::vector<std::string>& parts, const Call& good,
                                    const Tensor& x) {
  // One model after the other: both draw from the process's random generator.
  const std::unique_ptr<Sequential> refused = make();
  const std::string message = testing::error_of([&] { bad(*refused); });
  for (const std::string& part : parts) EXPECT_THAT(message, HasSubstr(part));
  const std::vector<double> after_refused = good(*refused);
  const std::vector<double> refused_state = state_of(*refused, x);
  const std::unique_ptr<Sequential> fresh = make();
  EXPECT_EQ(after_refused, good(*fresh));
  EXPECT_EQ(refused_state, state_of(*fresh, x));
}

const std::vector<std::string> kWideInput = {"model 'declared' input 'input_layer'",
                                             "expects shape (None, 4), got (8, 5)"};

TEST(RejectedCalls, Predict) {
  const Data d;
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.predict(d.wide_x, {.verbose = 0}); },
      [&] {
        std::vector<std::string> parts = kWideInput;
        parts.push_back("predict: ");
        return parts;
      }(),
      [&](Sequential& m) { return values_of({m.predict(d.x, {.verbose = 0})}); }, d.x);
}

TEST(RejectedCalls, PredictOnBatch) {
  const Data d;
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.predict_on_batch({d.wide_x}); },
      {"predict_on_batch: ", "expects shape (None, 4), got (8, 5)"},
      [&](Sequential& m) { return values_of(m.predict_on_batch({d.x})); }, d.x);
}

TEST(RejectedCalls, FitWithWrongInputs) {
  const Data d;
  const FitOptions options{.batch_size = 4, .epochs = 2, .verbose = 0};
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.fit(d.wide_x, d.y, options); },
      {"fit: ", "expects shape (None, 4), got (8, 5)"},
      [&](Sequential& m) { return values_of(m.fit(d.x, d.y, options).history.at("loss")); }, d.x);
}

// Targets that do not fit the output are refused before the optimizer builds its slots or a
// callback starts; the predict step the refused call had traced for its inputs goes too.
TEST(RejectedCalls, FitWithWrongTargets) {
  const Data d;
  const FitOptions options{.batch_size = 4, .epochs = 2, .verbose = 0};
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.fit(d.x, d.wide_y, options); },
      {"target float32[4, 3] does not fit output", "under its loss"},
      [&](Sequential& m) { return values_of(m.fit(d.x, d.y, options).history.at("loss")); }, d.x);
}

// Validation targets are checked with the training batch, before the first epoch trains, not
// after it.
TEST(RejectedCalls, FitWithWrongValidationTargets) {
  const Data d;
  FitOptions options{.batch_size = 4, .epochs = 2, .verbose = 0};
  FitOptions bad_validation = options;
  bad_validation.validation_data = ValidationData{{d.x}, {d.wide_y}};
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.fit(d.x, d.y, bad_validation); },
      {"fit (validation_data): model 'declared': target float32[4, 3] does not fit output"},
      [&](Sequential& m) { return values_of(m.fit(d.x, d.y, options).history.at("loss")); }, d.x);
}

// The targets check runs the losses on shapes alone; a loss that reads values (possible in a model
// run eagerly) is left for its first step to check.
TEST(RejectedCalls, ALossThatReadsValuesIsNotRefusedByTheTargetsCheck) {
  const Data d;
  auto model = declared();
  const auto reads_values = [](const Tensor& y_true, const Tensor& y_pred) {
    const double first = y_true.to_vector<double>().at(0);  // needs values
    return ops::mean(ops::square(y_pred - y_true), {-1}) * (first == first ? 1.0 : 0.0);
  };
  model->compile({.optimizer = "adam",
                  .loss = std::make_shared<losses::LossFunctionWrapper>(
                      reads_values, "reads_values", losses::LossOptions{}),
                  .run_eagerly = true});
  const History history = model->fit(d.x, d.y, {.batch_size = 4, .verbose = 0});
  EXPECT_EQ(history.history.at("loss").size(), 1u);
}

// What `kiln train` calls before it writes its run directory.
TEST(RejectedCalls, PrepareFor) {
  const Data d;
  expect_refused_then_like_fresh(
      declared,
      [&](Sequential& m) {
        m.prepare_for(datasets::Dataset::from_tensor_slices({d.x, d.wide_y}).batch(4), "train");
      },
      {"target float32[4, 3] does not fit output"},
      [&](Sequential& m) {
        return values_of(
            m.fit(d.x, d.y, {.batch_size = 4, .epochs = 2, .verbose = 0}).history.at("loss"));
      },
      d.x);
}

TEST(RejectedCalls, FitOnADataset) {
  const Data d;
  const auto data = [](const Tensor& x, const Tensor& y) {
    return datasets::Dataset::from_tensor_slices({x, y}).batch(4);
  };
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.fit(data(d.wide_x, d.y), {.verbose = 0}); },
      {"fit: ", "expects shape (None, 4), got (4, 5)"},
      [&](Sequential& m) {
        return values_of(m.fit(data(d.x, d.y), {.epochs = 2, .verbose = 0}).history.at("loss"));
      },
      d.x);
}

TEST(RejectedCalls, Evaluate) {
  const Data d;
  for (const bool wide_inputs : {true, false}) {
    expect_refused_then_like_fresh(
        declared,
        [&](Sequential& m) {
          m.evaluate(wide_inputs ? d.wide_x : d.x, wide_inputs ? d.y : d.wide_y, {.verbose = 0});
        },
        {wide_inputs ? "evaluate: " : "does not fit output"},
        [&](Sequential& m) { return values_of(m.evaluate(d.x, d.y, {.verbose = 0})); }, d.x);
  }
}

TEST(RejectedCalls, TrainOnBatch) {
  const Data d;
  for (const bool wide_inputs : {true, false}) {
    expect_refused_then_like_fresh(
        declared,
        [&](Sequential& m) {
          m.train_on_batch({wide_inputs ? d.wide_x : d.x}, {wide_inputs ? d.y : d.wide_y});
        },
        {wide_inputs ? "train_on_batch: " : "does not fit output"},
        [&](Sequential& m) { return values_of(m.train_on_batch({d.x}, {d.y})); }, d.x);
  }
}

TEST(RejectedCalls, TestOnBatch) {
  const Data d;
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.test_on_batch({d.wide_x}, {d.y}); },
      {"test_on_batch: ", "expects shape (None, 4), got (8, 5)"},
      [&](Sequential& m) { return values_of(m.test_on_batch({d.x}, {d.y})); }, d.x);
}

// A model without an Input is built by its first call: a refused first call builds nothing, so
// the next call's shapes build it and its weights are drawn as a fresh model's.
TEST(RejectedCalls, AFirstCallThatFailsBuildsNothing) {
  const Data d;
  const Tensor rank3 = ops::reshape(d.x, {4, 2, 4});
  expect_refused_then_like_fresh(
      undeclared, [&](Sequential& m) { m.predict_on_batch({rank3}); }, {"reshape"},
      [&](Sequential& m) { return values_of(m.predict_on_batch({d.x})); }, d.x);
  expect_refused_then_like_fresh(
      undeclared,
      [&](Sequential& m) {
        m.fit(rank3, ops::reshape(d.y, {4, 2, 2}), {.verbose = 0});
      },
      {"reshape"},
      [&](Sequential& m) {
        return values_of(m.fit(d.x, ops::reshape(ops::concat({d.y, d.y, d.y}, 1), {8, 3, 2}),
                               {.batch_size = 4, .epochs = 2, .verbose = 0})
                             .history.at("loss"));
      },
      d.x);
}

// A layer built before the call (pretrained, or shared with another model) keeps its weights when
// a first call on the model around it fails: only what the call built is forgotten.
TEST(RejectedCalls, LayersBuiltBeforeTheCallKeepTheirWeights) {
  const Data d;
  random::set_seed(3);
  auto base = std::make_shared<layers::Dense>(3);
  (void)(*base)(d.x);
  const std::vector<double> before = values_of({base->weights()[0].value()});
  Sequential model(std::vector<layers::LayerRef>{base, layers::Dense(2)}, "around");
  model.compile({.optimizer = "adam", .loss = "mse"});
  EXPECT_THAT(testing::error_of([&] { model.fit(d.x, d.wide_y, {.verbose = 0}); }),
              HasSubstr("does not fit output"));
  EXPECT_TRUE(base->built());
  EXPECT_EQ(values_of({base->weights()[0].value()}), before);
  EXPECT_FALSE(model.built());
  model.fit(d.x, d.y, {.batch_size = 4, .verbose = 0});
  EXPECT_TRUE(model.built());
}

// A subclassed model's layers build on its first call; a refused first call (targets of the wrong
// width) builds none of them and draws nothing, so the next fit is a fresh model's.
class TwoDense : public Model {
  KILN_LAYER_CLASS(TwoDense)

 public:
  TwoDense() : Model("two_dense") {
    hidden_ = track(layers::Dense(3, {.activation = "relu"}));
    out_ = track(layers::Dense(2));
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const layers::CallContext&) override {
    return {(*out_)((*hidden_)(in[0]))};
  }

 private:
  std::shared_ptr<layers::Dense> hidden_;
  std::shared_ptr<layers::Dense> out_;
};

TEST(RejectedCalls, ASubclassedModelsLayersAreNotBuiltByARefusedCall) {
  const Data d;
  const FitOptions options{.batch_size = 4, .epochs = 2, .verbose = 0};
  const auto make = [] {
    random::set_seed(5);
    auto model = std::make_unique<TwoDense>();
    model->compile({.optimizer = "adam", .loss = "mse"});
    return model;
  };
  const std::unique_ptr<TwoDense> refused = make();
  EXPECT_THAT(testing::error_of([&] { refused->fit(d.x, d.wide_y, options); }),
              HasSubstr("does not fit output"));
  EXPECT_TRUE(refused->weights().empty());
  EXPECT_EQ(refused->trainer().optimizer().variables().size(), 2u);  // iterations, rate
  const std::vector<double> after_refused = refused->fit(d.x, d.y, options).history.at("loss");
  const std::unique_ptr<TwoDense> fresh = make();
  EXPECT_EQ(after_refused, fresh->fit(d.x, d.y, options).history.at("loss"));
  EXPECT_EQ(values_of(refused->get_weights()), values_of(fresh->get_weights()));
}

// A model that has trained already checks a later fit's validation data before training again.
TEST(RejectedCalls, ValidationDataIsCheckedBeforeALaterFitTrains) {
  const Data d;
  const std::unique_ptr<Sequential> model = declared();
  model->fit(d.x, d.y, {.batch_size = 4, .verbose = 0});
  const std::vector<double> before = values_of(model->get_weights());
  FitOptions bad{.batch_size = 4, .epochs = 1, .verbose = 0};
  bad.validation_data = ValidationData{{d.x}, {d.wide_y}};
  EXPECT_THAT(testing::error_of([&] { model->fit(d.x, d.y, bad); }),
              HasSubstr("fit (validation_data): model 'declared': target float32[4, 3]"));
  EXPECT_EQ(values_of(model->get_weights()), before);
}

// fit's own options are checked before anything is built or drawn.
TEST(RejectedCalls, FitWithAnOptionItRefuses) {
  const Data d;
  const FitOptions options{.batch_size = 4, .epochs = 2, .verbose = 0};
  FitOptions bad = options;
  bad.validation_freq = 0;
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.fit(d.x, d.y, bad); },
      {"fit: validation_freq must be at least 1, got 0"},
      [&](Sequential& m) { return values_of(m.fit(d.x, d.y, options).history.at("loss")); }, d.x);
}

// Loading a file whose weights do not fit the model changes nothing: the load is all or nothing.
TEST(RejectedCalls, LoadWeights) {
  const Data d;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kiln_rejected_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  random::set_seed(2);
  Sequential other(
      std::vector<layers::LayerRef>{layers::Input({4}), layers::Dense(3), layers::Dense(5)});
  other.save_weights((dir / "other.weights.h5").string());
  const std::unique_ptr<Sequential> source = declared();
  source->fit(d.x, d.y, {.batch_size = 4, .verbose = 0});
  source->save_weights((dir / "good.weights.h5").string());
  expect_refused_then_like_fresh(
      declared, [&](Sequential& m) { m.load_weights((dir / "other.weights.h5").string()); },
      {"other.weights.h5"},
      [&](Sequential& m) {
        m.load_weights((dir / "good.weights.h5").string());
        return values_of(m.get_weights());
      },
      d.x);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kiln
