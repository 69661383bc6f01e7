// adapt_layers: every layer that needs adapt learns its state from what reaches it (the data
// through the layers before it), in Sequential and functional models; given statistics are kept.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/merge/concatenate.h"
#include "kiln/layers/preprocessing/normalization.h"
#include "kiln/layers/preprocessing/rescaling.h"
#include "kiln/training/model/adapt_layers.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

using layers::Normalization;

// The adapted mean and variance of `layer`.
std::pair<std::vector<float>, std::vector<float>> statistics(const layers::Layer& layer) {
  const std::vector<Variable> w = layer.weights();
  return {w.at(0).value().to_vector<float>(), w.at(1).value().to_vector<float>()};
}

void expect_statistics_of(const layers::Layer& layer, const Tensor& seen) {
  const auto [mean, variance] = statistics(layer);
  const std::vector<float> want_mean = ops::mean(seen, {0}).to_vector<float>();
  const std::vector<float> want_variance = ops::variance(seen, {0}).to_vector<float>();
  ASSERT_EQ(mean.size(), want_mean.size());
  for (size_t i = 0; i < mean.size(); ++i) {
    EXPECT_NEAR(mean[i], want_mean[i], 1e-4) << i;
    EXPECT_NEAR(variance[i], want_variance[i], 1e-3) << i;
  }
}

TEST(AdaptLayers, SequentialLayersSeeTheDataThroughTheLayersBeforeThem) {
  random::set_seed(1);
  const Tensor x = random::uniform({50, 3}, -2, 6);
  const Tensor y = zeros({50, 1});
  auto normalization = std::make_shared<Normalization>();
  Sequential model({layers::Input({3}), layers::Rescaling(2.0, 1.0), normalization,
                    layers::Dense(1)});
  const datasets::Dataset data = datasets::Dataset::from_tensor_slices({x, y}).batch(16);
  EXPECT_THAT(adapt_layers(model, data), ::testing::ElementsAre(normalization->name()));
  expect_statistics_of(*normalization, x * 2.0 + 1.0);
  // Normalized by its own statistics, the training data has mean 0 and variance 1.
  const Tensor out = (*normalization)({x * 2.0 + 1.0}, layers::CallContext{})[0];
  for (const float m : ops::mean(out, {0}).to_vector<float>()) EXPECT_NEAR(m, 0.0, 1e-4);
  for (const float v : ops::variance(out, {0}).to_vector<float>()) EXPECT_NEAR(v, 1.0, 1e-3);
}

TEST(AdaptLayers, FunctionalLayersSeeTheirInputsAndGivenStatisticsStay) {
  random::set_seed(2);
  const Tensor a = random::uniform({40, 2}, 0, 10), b = random::uniform({40, 1}, -1, 1);
  const layers::KerasTensor in_a = layers::Input({2}), in_b = layers::Input({1});
  auto adapted = std::make_shared<Normalization>();
  auto given = std::make_shared<Normalization>(layers::NormalizationOptions{
      .mean = std::vector<double>{5.0}, .variance = std::vector<double>{4.0}});
  const layers::KerasTensor joined = (*adapted)(layers::Concatenate()({in_a, in_b})[0]);
  Model model({in_a, in_b}, {layers::Dense(1)((*given)(in_b)), layers::Dense(1)(joined)});
  const datasets::Dataset data =
      datasets::Dataset::from_tensor_slices({a, b, zeros({40, 1}), zeros({40, 1})}).batch(7);
  EXPECT_THAT(adapt_layers(model, data), ::testing::ElementsAre(adapted->name()));
  expect_statistics_of(*adapted, ops::concat({a, b}, 1));
  EXPECT_TRUE(given->weights().empty());
}

}  // namespace
}  // namespace kiln
