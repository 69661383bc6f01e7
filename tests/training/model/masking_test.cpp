// Masks through models: Embedding(mask_zero) and Masking make them, pooling and the compiled
// loss and metrics honour them, so results do not depend on how much padding a sequence got;
// a layer that cannot carry a mask warns that it drops it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/core/masking.h"
#include "kiln/layers/pooling/global_pooling.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/losses/losses.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"
#include "tests/engine/log_capture.h"
#include "tests/training/model/padded_sequences.h"

namespace kiln {
namespace {

using layers::Dense;
using layers::Embedding;
using layers::Input;

using testing::expect_near_all;
using testing::padded;

template <typename Pooling>
Sequential embedding_classifier() {
  random::set_seed(7);
  return Sequential(
      {Input({-1}, DType::i32), Embedding(20, 4, {.mask_zero = true}), Pooling(), Dense(3)});
}

template <typename Pooling>
void check_padding_invariance(const std::string& pooling) {
  Sequential model = embedding_classifier<Pooling>();
  const std::vector<int32_t> ids{3, 5, 7, 2};
  const Tensor want = model(padded(ids, 4, false), false);
  for (const bool pre : {false, true}) {
    for (const int64_t width : {5, 9}) {
      const std::string what =
          pooling + (pre ? " pre-padded to " : " post-padded to ") + std::to_string(width);
      expect_near_all(model(padded(ids, width, pre), false), want, what + " (eager)");
      expect_near_all(model.predict(padded(ids, width, pre)), want, what + " (traced)");
    }
  }
  // Input({-1}) leaves the length unknown in predict's signature: every width, one trace.
  EXPECT_EQ(model.trainer().predict_stats().traces, 1) << pooling;
}

TEST(Masking, PooledOutputsDoNotDependOnPadding) {
  check_padding_invariance<layers::GlobalAveragePooling1D>("GlobalAveragePooling1D");
  check_padding_invariance<layers::GlobalMaxPooling1D>("GlobalMaxPooling1D");
}

TEST(Masking, TheMaskingLayerMasksStepsOfMaskValue) {
  random::set_seed(3);
  Sequential model({Input({-1, 2}), layers::Masking(-1.0), layers::GlobalMaxPooling1D(), Dense(2)});
  const Tensor x = tensor({0.5F, -2.0F, 1.5F, 0.25F}, {1, 2, 2});
  const Tensor with_padding =
      tensor({-1.0F, -1.0F, 0.5F, -2.0F, 1.5F, 0.25F, -1.0F, -1.0F}, {1, 4, 2});
  expect_near_all(model(with_padding, false), model(x, false), "Masking");
  // A step is padding only when every feature equals mask_value.
  const Tensor partial = tensor({-1.0F, 3.0F}, {1, 1, 2});
  EXPECT_EQ(layers::Masking(-1.0).compute_mask({partial}, {})[0].to_vector<bool>(),
            std::vector<bool>{true});
}

// Per-step logits for a sequence labelling loss: the mask reaches the loss and the metrics.
Sequential tagger() {
  random::set_seed(11);
  Sequential model({Input({-1}, DType::i32), Embedding(20, 4, {.mask_zero = true}), Dense(3)});
  model.compile({.optimizer = "sgd",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .metrics = {"accuracy"}});
  return model;
}

TEST(Masking, CompiledLossAndMetricsSkipMaskedSteps) {
  Sequential model = tagger();
  const std::vector<int32_t> ids{4, 9, 1};
  const Tensor labels = from_vector(std::vector<int64_t>{0, 2, 1}, Shape({1, 3}));
  const auto want = model.test_on_batch({padded(ids, 3, false)}, {labels});
  // Padded labels hold anything: masked steps count in neither the loss nor the accuracy.
  for (const int64_t filler : {0, 2}) {
    const Tensor padded_labels =
        from_vector(std::vector<int64_t>{0, 2, 1, filler, filler}, Shape({1, 5}));
    const auto got = model.test_on_batch({padded(ids, 5, false)}, {padded_labels});
    EXPECT_NEAR(got.at("loss"), want.at("loss"), 1e-6) << "filler " << filler;
    EXPECT_NEAR(got.at("accuracy"), want.at("accuracy"), 1e-6) << "filler " << filler;
  }
  // Lengths 3 and 5 share the trace: the labels' length is unknown where the predictions' is.
  EXPECT_EQ(model.trainer().test_stats().traces, 1);
}

TEST(Masking, ALayerThatDropsTheMaskWarnsOnce) {
  testing::LogCapture log;
  random::set_seed(5);
  Sequential model({Input({4}, DType::i32), Embedding(10, 2, {.mask_zero = true}),
                    layers::Flatten({.name = "flat"}), Dense(1)});
  (void)model(padded({1, 2}, 4, false), false);
  (void)model(padded({1, 2}, 4, false), false);
  const std::vector<std::string> warnings = log.at(LogLevel::warning);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], ::testing::HasSubstr("layer 'flat' (Flatten) does not support masking"));
}

}  // namespace
}  // namespace kiln
