// Freezing a model freezes its layers, as Keras's trainable setter does: a frozen base's
// BatchNormalization normalizes with its moving statistics and leaves them alone in training.
#include <gtest/gtest.h>

#include <memory>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/normalization/batch_normalization.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

TEST(FrozenModel, ItsBatchNormalizationRunsInInferenceMode) {
  random::set_seed(5);
  auto batch_norm = std::make_shared<layers::BatchNormalization>();
  auto base = std::make_shared<Sequential>(
      std::vector<layers::LayerRef>{layers::Input({4}), layers::Dense(4), batch_norm});
  Sequential model({layers::Input({4}), base, layers::Dense(2)});
  base->set_trainable(false);
  EXPECT_FALSE(batch_norm->trainable());

  const Tensor x = random::normal({16, 4}, 3.0, 2.0);
  const std::vector<float> moving_mean = batch_norm->moving_mean().value().to_vector<float>();
  const Tensor trained = model(x, /*training=*/true);
  EXPECT_EQ(batch_norm->moving_mean().value().to_vector<float>(), moving_mean);
  EXPECT_EQ(trained.to_vector<float>(), model(x, /*training=*/false).to_vector<float>());

  base->set_trainable(true);  // unfreezing reaches the layers too
  EXPECT_TRUE(batch_norm->trainable());
  (void)model(x, /*training=*/true);
  EXPECT_NE(batch_norm->moving_mean().value().to_vector<float>(), moving_mean);
}

}  // namespace
}  // namespace kiln
