// Dropout's noise_shape: the keep mask's shape, broadcast over the input (Keras's None is -1), so
// an axis of size 1 in it drops whole slices; it round-trips through the config.
#include <gmock/gmock.h>

#include "kiln/engine/function/function.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/registry.h"
#include "tests/test_support/expect_error.h"

namespace kiln::layers {
namespace {

TEST(DropoutNoiseShape, OneChoiceCoversEachAxisOfSizeOne) {
  Dropout dropout(0.5, {.seed = 3, .noise_shape = {-1, 1, 4}});
  const std::vector<float> y = dropout(ones({2, 5, 4}), /*training=*/true).to_vector<float>();
  int dropped = 0;
  for (int b = 0; b < 2; ++b) {
    for (int c = 0; c < 4; ++c) {
      const float first = y[static_cast<size_t>(b * 20 + c)];
      EXPECT_TRUE(first == 0.0f || first == 2.0f) << first;
      dropped += first == 0.0f ? 1 : 0;
      for (int t = 1; t < 5; ++t) EXPECT_EQ(y[static_cast<size_t>(b * 20 + t * 4 + c)], first);
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 8);
}

// Traced with the batch size unknown, one trace serves every batch and the mask still broadcasts.
TEST(DropoutNoiseShape, TracesWithAnUnknownBatchSize) {
  Dropout dropout(0.5, {.seed = 4, .noise_shape = {-1, 1, 4}});
  auto traced = function([&](const Tensor& x) { return dropout(x, /*training=*/true); },
                         {.input_signature = std::vector{TensorSpec({-1, 5, 4})}});
  for (const int64_t batch : {2, 3}) {
    const std::vector<float> y = traced(ones({batch, 5, 4})).to_vector<float>();
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t t = 1; t < 5; ++t)
        for (int64_t c = 0; c < 4; ++c)
          EXPECT_EQ(y[static_cast<size_t>(b * 20 + t * 4 + c)], y[static_cast<size_t>(b * 20 + c)]);
  }
  EXPECT_EQ(traced.stats().traces, 1);
}

TEST(DropoutNoiseShape, RoundTripsThroughTheConfigAsKerasWritesIt) {
  const Dropout dropout(0.25, {.noise_shape = {-1, 1, 4}});
  const Config config = dropout.get_config();
  EXPECT_EQ(config["noise_shape"].to_json(), "[null, 1, 4]");
  const LayerPtr copy = deserialize_layer(serialize_layer(dropout));
  EXPECT_EQ(copy->get_config()["noise_shape"].to_json(), "[null, 1, 4]");
}

TEST(DropoutNoiseShape, ShapesThatDoNotBroadcastAreRefused) {
  Dropout wrong_rank(0.5, {.noise_shape = {-1, 1}});
  EXPECT_THAT(testing::error_of([&] {
                (void)wrong_rank(ones({2, 5, 4}), true);
              }),
              ::testing::HasSubstr("noise_shape [?, 1] has 2 axes, the input [2, 5, 4] has 3"));
  Dropout wrong_size(0.5, {.noise_shape = {-1, 3, 4}});
  EXPECT_THAT(testing::error_of([&] {
                (void)wrong_size(ones({2, 5, 4}), true);
              }),
              ::testing::HasSubstr("does not broadcast to the input [2, 5, 4]"));
}

}  // namespace
}  // namespace kiln::layers
