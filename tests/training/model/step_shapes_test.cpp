// compile's step_shapes: how many traces sequences of several lengths cost, and that every
// choice trains the same.
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/pooling/global_pooling.h"
#include "kiln/losses/losses.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"

namespace kiln {
namespace {

// Batches of `rows` sequences of ids in [1, 9] of the given lengths, labels from the first id.
std::pair<Tensor, Tensor> batch_of_length(int64_t length, int64_t rows = 2) {
  std::vector<int32_t> ids;
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < rows * length; ++i) ids.push_back(static_cast<int32_t>(1 + (i * 7) % 9));
  for (int64_t r = 0; r < rows; ++r) labels.push_back(ids[static_cast<size_t>(r * length)] % 2);
  return {from_vector(ids, Shape({rows, length})), from_vector(labels, Shape({rows}))};
}

struct TrainingRun {
  int64_t traces;
  double last_loss;
};

TrainingRun train_on_lengths(StepShapes shapes) {
  random::set_seed(21);
  layers::reset_names();
  Sequential model({layers::Input({-1}, DType::i32), layers::Embedding(10, 4, {.mask_zero = true}),
                    layers::GlobalAveragePooling1D(), layers::Dense(2)});
  model.compile({.optimizer = "adam",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .step_shapes = shapes});
  double loss = 0;
  for (const int64_t length : {3, 5, 7, 5, 3}) {
    const auto [x, y] = batch_of_length(length);
    loss = model.train_on_batch({x}, {y}).at("loss");
  }
  // A smaller last batch never retraces: the batch dim is unknown in every choice.
  const auto [x, y] = batch_of_length(5, 1);
  loss = model.train_on_batch({x}, {y}).at("loss");
  return {model.trainer().train_stats().traces, loss};
}

TEST(StepShapes, TracesPerChoiceAndTheSameTraining) {
  const TrainingRun declared = train_on_lengths(StepShapes::model_inputs);
  const TrainingRun exact = train_on_lengths(StepShapes::exact);
  const TrainingRun relaxed = train_on_lengths(StepShapes::reduce_retracing);
  EXPECT_EQ(declared.traces, 1);  // Input({-1}): the length is unknown in the signature
  EXPECT_EQ(exact.traces, 3);     // one per distinct length, as tf.function does
  EXPECT_EQ(relaxed.traces, 2);   // the first length, then one with the length relaxed
  EXPECT_NEAR(exact.last_loss, declared.last_loss, 1e-6);
  EXPECT_NEAR(relaxed.last_loss, declared.last_loss, 1e-6);
}

// Token ids and labels arrive as int32 in one epoch and int64 in the next: the steps cast them
// at the boundary to the dtypes they were first traced for, in every step_shapes choice.
TEST(StepShapes, IntegerWidthsShareATrace) {
  for (const StepShapes shapes :
       {StepShapes::model_inputs, StepShapes::exact, StepShapes::reduce_retracing}) {
    SCOPED_TRACE(static_cast<int>(shapes));
    random::set_seed(5);
    layers::reset_names();
    Sequential model({layers::Input({-1}, DType::i32),
                      layers::Embedding(10, 4, {.mask_zero = true}),
                      layers::GlobalAveragePooling1D(), layers::Dense(2)});
    model.compile({.optimizer = "sgd",
                   .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                       losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                   .step_shapes = shapes});
    const auto [x, y] = batch_of_length(4);
    const Tensor x64 = ops::cast(x, DType::i64), y32 = ops::cast(y, DType::i32);
    const double first = model.train_on_batch({x}, {y}).at("loss");
    model.train_on_batch({x64}, {y32});
    model.train_on_batch({x}, {y});
    model.test_on_batch({x64}, {y32});
    model.predict_on_batch({x64});
    EXPECT_EQ(model.trainer().train_stats().traces, 1);
    EXPECT_EQ(model.trainer().test_stats().traces, 1);
    EXPECT_EQ(model.trainer().predict_stats().traces, 1);
    EXPECT_LT(model.train_on_batch({x64}, {y}).at("loss"), first);  // it did train
  }
}

TEST(StepShapes, WideFloatFeaturesAreCastToTheComputeDtype) {
  random::set_seed(6);
  layers::reset_names();
  Sequential model({layers::Input({3}), layers::Dense(1)});
  model.compile({.optimizer = "sgd", .loss = "mse", .step_shapes = StepShapes::exact});
  const Tensor x = from_vector(std::vector<double>{1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  const Tensor y = from_vector(std::vector<double>{1, 0}, Shape({2}));
  model.train_on_batch({x}, {y});
  model.train_on_batch({ops::cast(x, DType::f32)}, {ops::cast(y, DType::f32)});
  EXPECT_EQ(model.trainer().train_stats().traces, 1);
  EXPECT_EQ(model.predict_on_batch({x})[0].dtype(), DType::f32);
}

TEST(StepShapes, Int64IdsOutsideInt32AreAnError) {
  Sequential model({layers::Input({-1}, DType::i32), layers::Embedding(10, 4)});
  const Tensor ids = from_vector(std::vector<int64_t>{1, int64_t{1} << 40}, Shape({1, 2}));
  try {
    model.predict_on_batch({ids});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("do not fit the int32 input"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln
