#include "tests/devices/reference_fits.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/normalization/batch_normalization.h"
#include "kiln/layers/pooling/global_pooling.h"
#include "kiln/layers/pooling/pooling.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/losses/losses.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/model/sequential.h"

namespace kiln::testing {
namespace {

using namespace layers;

constexpr int64_t kBatch = 16;
constexpr int64_t kClasses = 4;
constexpr int64_t kVocabulary = 30;

std::vector<LayerRef> layers_of(ReferenceModel model) {
  switch (model) {
    case ReferenceModel::mlp:
      return {Input({8, 8}), Flatten(), Dense(32, {.activation = "relu"}), Dense(kClasses)};
    case ReferenceModel::cnn:
      return {Input({10, 10, 2}),
              Conv2D(6, {3, 3}, {.activation = "relu"}),
              BatchNormalization(),
              MaxPooling2D(),
              Flatten(),
              Dense(16, {.activation = "relu"}),
              Dropout(0.3),
              Dense(kClasses)};
    case ReferenceModel::lstm:
      return {Input({-1}, DType::i32), Embedding(kVocabulary, 8, {.mask_zero = true}),
              LSTM(12, {.return_sequences = true}), GlobalMaxPooling1D(), Dense(kClasses)};
  }
  return {};
}

// Labels a model can learn: each sample's first feature + 2, clipped to [0, 3] and truncated.
Tensor labels_of(const Tensor& first_feature) {
  return ops::cast(ops::clip(ops::add(first_feature, 2.0), 0.0, kClasses - 1.0), DType::i64);
}

// Token sequences of lengths 1..40, in buckets [0, 11), [11, 21), [21, 41) padded to the bucket
// (5, 5 and 10 batches).
datasets::Dataset token_sequences() {
  random::Generator gen(3);
  std::vector<datasets::Element> elements;
  for (int64_t i = 0; i < kSteps * kBatch; ++i) {
    const int64_t length = (i * 17) % 40 + 1;
    const Tensor tokens = ops::cast(
        random::uniform({length}, 1, kVocabulary, DType::f32, gen, Device::cpu()), DType::i32);
    const Tensor label =
        ops::reshape(ops::cast(ops::div(ops::cast(ops::slice(tokens, {0}, {1}), DType::f32),
                                        static_cast<double>(kVocabulary) / kClasses),
                               DType::i64),  // truncation: the class of the first token's quarter
                     {});
    elements.push_back({tokens, label});
  }
  // Full buckets only: kSteps batches of kBatch.
  return datasets::Dataset::from_elements(std::move(elements))
      .bucket_by_sequence_length(nullptr, {11, 21, 41}, {kBatch, kBatch, kBatch, kBatch},
                                 {.pad_to_bucket_boundary = true, .drop_remainder = true});
}

}  // namespace

std::string to_string(ReferenceModel model) {
  switch (model) {
    case ReferenceModel::mlp:
      return "mlp";
    case ReferenceModel::cnn:
      return "cnn";
    case ReferenceModel::lstm:
      return "lstm";
  }
  return "?";
}

std::unique_ptr<Model> reference_model(ReferenceModel model, const std::string& device) {
  random::set_seed(21);
  reset_names();
  auto out = std::make_unique<Sequential>(layers_of(model));
  out->compile({.optimizer = "adam",
                .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                    losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                .metrics = {"accuracy"},
                .device = device});
  return out;
}

datasets::Dataset reference_data(ReferenceModel model) {
  if (model == ReferenceModel::lstm) return token_sequences();
  random::Generator gen(5);
  const Shape sample = model == ReferenceModel::mlp ? Shape({8, 8}) : Shape({10, 10, 2});
  std::vector<int64_t> dims{kSteps * kBatch};
  for (const int64_t d : sample.dims()) dims.push_back(d);
  const Tensor x = random::normal(Shape(dims), 0, 1, DType::f32, gen, Device::cpu());
  const Tensor first =
      ops::reshape(ops::slice(ops::reshape(x, {kSteps * kBatch, -1}), {0, 0}, {kSteps * kBatch, 1}),
                   {kSteps * kBatch});
  return datasets::Dataset::from_tensor_slices({x, labels_of(first)}).batch(kBatch);
}

FitRecord reference_fit(ReferenceModel model, const std::string& device) {
  std::unique_ptr<Model> m = reference_model(model, device);
  FitRecord record;
  auto losses = std::make_shared<LambdaCallback>(
      LambdaCallbackHooks{.on_train_batch_end = [&](int64_t, const Logs& logs) {
        record.losses.push_back(logs.at("loss"));
      }});
  m->fit(reference_data(model), {.epochs = 1, .verbose = 0, .callbacks = {losses}});
  record.weights = m->get_weights();
  record.device = m->device();
  return record;
}

void expect_same_fit(const FitRecord& got, const FitRecord& want, double tolerance) {
  ASSERT_EQ(got.losses.size(), want.losses.size());
  for (size_t i = 0; i < got.losses.size(); ++i)
    EXPECT_NEAR(got.losses[i], want.losses[i], tolerance * std::max(1.0, std::abs(want.losses[i])))
        << "loss after step " << i + 1;
  ASSERT_EQ(got.weights.size(), want.weights.size());
  for (size_t w = 0; w < got.weights.size(); ++w) {
    ASSERT_TRUE(got.weights[w].device().is_cpu()) << "weight " << w << " is not a host copy";
    const std::vector<float> g = got.weights[w].to_vector<float>();
    const std::vector<float> e = want.weights[w].to_vector<float>();
    ASSERT_EQ(g.size(), e.size()) << "weight " << w;
    for (size_t i = 0; i < g.size(); ++i)
      ASSERT_NEAR(g[i], e[i], tolerance * std::max(1.0f, std::abs(e[i])))
          << "weight " << w << " element " << i;
  }
}

}  // namespace kiln::testing
