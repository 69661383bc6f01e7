// fit on a Dataset, Keras's way: steps_per_epoch continues one pass across epochs and stops
// training when the data runs out; validation_data works, tensor-only options are refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/training/model/sequential.h"
#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

// 16 samples whose features are all their index, in batches of 4.
struct Samples {
  Tensor x = ops::cast(ops::broadcast_to(ops::reshape(arange(16), {16, 1}), {16, 2}), DType::f32);
  Tensor y = ops::sum(x, {1}, true);
};

std::unique_ptr<Sequential> regression() {
  random::set_seed(1);
  auto model = std::make_unique<Sequential>(
      std::vector<layers::LayerRef>{layers::Input({2}), layers::Dense(1)});
  model->compile({.optimizer = "sgd", .loss = "mse"});
  return model;
}

TEST(FitDataset, StepsPerEpochContinuesThePassAcrossEpochs) {
  const Samples s;
  auto model = regression();
  model->train_on_batch({s.x}, {s.y});  // prepared: fit pulls nothing to build the steps
  std::vector<float> firsts;            // each batch's first sample index, as fit pulls them
  const datasets::Dataset data = datasets::Dataset::from_tensor_slices({s.x, s.y})
                                     .batch(4)
                                     .map([&firsts](const datasets::Element& e) {
                                       firsts.push_back(e[0].to_vector<float>()[0]);
                                       return e;
                                     });
  const History h = model->fit(data, {.epochs = 2, .verbose = 0, .steps_per_epoch = 2});
  EXPECT_EQ(firsts, (std::vector<float>{0, 4, 8, 12}));
  EXPECT_EQ(h.epoch.size(), 2u);

  // Five epochs of two steps need ten batches: the data runs out in the third, which ends fit.
  firsts.clear();
  const History short_data = model->fit(data, {.epochs = 5, .verbose = 0, .steps_per_epoch = 2});
  EXPECT_EQ(short_data.epoch.size(), 3u);
  EXPECT_EQ(firsts, (std::vector<float>{0, 4, 8, 12}));
}

// Each fit call takes new passes of the data, so a shuffle reshuffles as a new tf.data iteration
// does; fit(initial_epoch=1) continues where fit(epochs=1) ended, as one fit(epochs=2) would.
TEST(FitDataset, LaterFitCallsTakeNewPasses) {
  const Samples s;
  std::vector<float> firsts;
  const datasets::Dataset data = datasets::Dataset::from_tensor_slices({s.x, s.y})
                                     .shuffle(16, 7)
                                     .batch(16)
                                     .map([&firsts](const datasets::Element& e) {
                                       firsts.push_back(e[0].to_vector<float>()[0]);
                                       return e;
                                     });
  const auto orders = [&](const std::vector<FitOptions>& calls) {
    auto model = regression();
    model->train_on_batch({s.x}, {s.y});
    firsts.clear();
    for (const FitOptions& o : calls) model->fit(data, o);
    return firsts;
  };
  const std::vector<float> one_call = orders({{.epochs = 2, .verbose = 0}});
  ASSERT_EQ(one_call.size(), 2u);
  EXPECT_NE(one_call[0], one_call[1]);
  EXPECT_EQ(orders({{.epochs = 1, .verbose = 0}, {.epochs = 2, .verbose = 0, .initial_epoch = 1}}),
            one_call);
  EXPECT_EQ(orders({{.epochs = 1, .verbose = 0}, {.epochs = 1, .verbose = 0}}), one_call);
}

// History.input_wait: one fraction of the epoch's training time per epoch (how large depends on
// the machine, so only its range is checked).
TEST(FitDataset, HistoryRecordsEachEpochsInputWait) {
  const Samples s;
  auto model = regression();
  const History history = model->fit(datasets::Dataset::from_tensor_slices({s.x, s.y}).batch(4),
                                     {.epochs = 3, .verbose = 0});
  ASSERT_EQ(history.input_wait.size(), 3u);
  for (const double wait : history.input_wait) {
    EXPECT_GE(wait, 0.0);
    EXPECT_LE(wait, 1.0);
  }
}

TEST(FitDataset, ValidationDataGivesValidationLogs) {
  const Samples s;
  auto model = regression();
  const History h =
      model->fit(datasets::Dataset::from_tensor_slices({s.x, s.y}).batch(4),
                 {.epochs = 1, .verbose = 0, .validation_data = ValidationData{{s.x}, {s.y}}});
  EXPECT_EQ(h.history.count("val_loss"), 1u);
}

TEST(FitDataset, RefusesOptionsThatNeedTensorsAndBadFrequencies) {
  const Samples s;
  auto model = regression();
  const datasets::Dataset data = datasets::Dataset::from_tensor_slices({s.x, s.y}).batch(4);
  EXPECT_THAT(testing::error_of([&] { model->fit(data, {.verbose = 0, .validation_split = 0.5}); }),
              HasSubstr("validation_split and sample_weight work with tensors"));
  EXPECT_THAT(testing::error_of([&] {
                model->fit(data, {.verbose = 0,
                                  .validation_data = ValidationData{{s.x}, {s.y}},
                                  .validation_freq = 0});
              }),
              HasSubstr("validation_freq must be at least 1, got 0"));
  EXPECT_THAT(testing::error_of([&] {
                model->fit(ops::slice(s.x, {0, 0}, {1, 2}), ops::slice(s.y, {0, 0}, {1, 1}),
                           {.verbose = 0, .validation_split = 0.5});
              }),
              HasSubstr("the training data has no samples (1 given, validation_split 0.5)"));
}

}  // namespace
}  // namespace kiln
