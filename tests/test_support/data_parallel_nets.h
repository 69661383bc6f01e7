#pragma once
// The data-parallel suites' models and data: the three reference networks (an MLP, a CNN with
// synchronized BatchNormalization, a masked LSTM), learnable data for them, a one-epoch fit that
// records every step's loss, and the comparison of replicas' training with one device's. The
// same on every rank and replica: each trains the one-device reference itself and compares.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/normalization/batch_normalization.h"
#include "kiln/layers/pooling/pooling.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/losses/losses.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/distribute/strategy.h"
#include "kiln/training/model/sequential.h"

namespace kiln::testing {

using namespace layers;

constexpr int64_t kGlobalBatch = 128;
constexpr int64_t kClasses = 4;
constexpr int64_t kVocabulary = 30;
constexpr int64_t kLength = 12;

enum class Net { mlp, cnn, lstm };

inline void PrintTo(Net net, std::ostream* os) {
  *os << (net == Net::mlp ? "mlp" : net == Net::cnn ? "cnn" : "lstm");
}

inline std::vector<LayerRef> layers_of(Net net) {
  switch (net) {
    case Net::mlp:
      return {Input({16}), Dense(32, {.activation = "relu"}), Dense(kClasses)};
    case Net::cnn:
      return {Input({8, 8, 2}),
              Conv2D(6, {3, 3}, {.activation = "relu"}),
              BatchNormalization({.synchronized = true}),
              MaxPooling2D(),
              Flatten(),
              Dense(kClasses)};
    case Net::lstm:
      return {Input({kLength}, DType::i32), Embedding(kVocabulary, 8, {.mask_zero = true}),
              LSTM(10), Dense(kClasses)};
  }
  return {};
}

// `rows` samples, the same on every rank: features (token ids zero-padded after a random
// length, for the LSTM) and labels learnable from them.
inline std::pair<Tensor, Tensor> data_of(Net net, int64_t rows) {
  random::Generator gen(5);
  if (net == Net::lstm) {
    Tensor tokens =
        ops::cast(random::uniform({rows, kLength}, 1, kVocabulary, DType::f32, gen, Device::cpu()),
                  DType::i32);
    const Tensor lengths =
        random::uniform({rows, 1}, 1, kLength + 1, DType::f32, gen, Device::cpu());
    std::vector<float> steps(kLength);
    for (int64_t t = 0; t < kLength; ++t) steps[static_cast<size_t>(t)] = static_cast<float>(t);
    const Tensor positions = from_vector(steps, {kLength}, DType::f32, Device::cpu());
    tokens = ops::where(ops::less(positions, lengths), tokens, ops::zeros_like(tokens));
    const Tensor labels =
        ops::cast(ops::div(ops::cast(ops::slice(tokens, {0, 0}, {rows, 1}), DType::f32),
                           static_cast<double>(kVocabulary) / kClasses),
                  DType::i64);
    return {tokens, ops::reshape(labels, {rows})};
  }
  const Shape sample = net == Net::mlp ? Shape({16}) : Shape({8, 8, 2});
  std::vector<int64_t> dims{rows};
  for (const int64_t d : sample.dims()) dims.push_back(d);
  const Tensor x = random::normal(Shape(dims), 0, 1, DType::f32, gen, Device::cpu());
  const Tensor first =
      ops::reshape(ops::slice(ops::reshape(x, {rows, -1}), {0, 0}, {rows, 1}), {rows});
  return {x, ops::cast(ops::clip(ops::add(first, 2.0), 0.0, kClasses - 1.0), DType::i64)};
}

struct Trained {
  History history;
  std::vector<double> step_losses;
  std::vector<Tensor> weights;
  Tensor predictions;  // the trained model's on the data, in global batches
};

// `net` trained for one epoch over `rows` samples in global batches of kGlobalBatch, as one
// device or as the replicas of `strategy`.
inline Trained train(Net net, int64_t rows, const distribute::StrategyPtr& strategy) {
  random::set_seed(21);
  reset_names();
  Sequential model(layers_of(net));
  model.compile({.optimizer = "adam",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .metrics = {"accuracy"},
                 .strategy = strategy});
  Trained out;
  auto losses = std::make_shared<LambdaCallback>(
      LambdaCallbackHooks{.on_train_batch_end = [&](int64_t, const Logs& logs) {
        out.step_losses.push_back(logs.at("loss"));
      }});
  const auto [x, y] = data_of(net, rows);
  out.history = model.fit(x, y,
                          {.batch_size = kGlobalBatch,
                           .epochs = 1,
                           .verbose = 0,
                           .callbacks = {losses},
                           .shuffle = false});
  out.weights = model.get_weights();
  out.predictions = model.predict(x, {.batch_size = kGlobalBatch, .verbose = 0});
  return out;
}

inline void expect_close(double got, double want, double tolerance, const std::string& what) {
  EXPECT_NEAR(got, want, tolerance * std::max(1.0, std::abs(want))) << what;
}

// Every element within `tolerance`, relative where it exceeds 1.
inline void expect_close(const Tensor& got, const Tensor& want, double tolerance,
                         const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  double worst = 0;
  for (size_t i = 0; i < g.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(g[i]) - w[i]) /
                                std::max(1.0, std::abs(static_cast<double>(w[i]))));
  EXPECT_LE(worst, tolerance) << what;
}

inline void expect_same_training(const Trained& replicas, const Trained& one, double tolerance) {
  ASSERT_EQ(replicas.step_losses.size(), one.step_losses.size());
  for (size_t i = 0; i < one.step_losses.size(); ++i)
    expect_close(replicas.step_losses[i], one.step_losses[i], tolerance,
                 "loss after step " + std::to_string(i + 1));
  for (const auto& [key, values] : one.history.history)
    expect_close(replicas.history.history.at(key).back(), values.back(), tolerance,
                 "epoch log " + key);
  ASSERT_EQ(replicas.weights.size(), one.weights.size());
  for (size_t w = 0; w < one.weights.size(); ++w)
    expect_close(replicas.weights[w], one.weights[w], tolerance, "weight " + std::to_string(w));
  expect_close(replicas.predictions, one.predictions, tolerance, "predictions");
}

// `net` trained for an epoch of `rows` samples by the replicas of `strategy` ends within
// `tolerance` of one device (`reference`'s, or the default device): step losses, epoch logs,
// weights, and the trained model's predictions.
inline void expect_trains_as_one_device(Net net, int64_t rows,
                                        const distribute::StrategyPtr& strategy,
                                        double tolerance = 1e-5,
                                        const distribute::StrategyPtr& reference = nullptr) {
  expect_same_training(train(net, rows, strategy), train(net, rows, reference), tolerance);
}

// 50 full global batches.
constexpr int64_t kRows = 50 * kGlobalBatch;

}  // namespace kiln::testing
