// Models that train through the random preprocessing layers: one trace, fresh draws per step.
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/preprocessing/random_brightness.h"
#include "kiln/layers/preprocessing/random_contrast.h"
#include "kiln/layers/preprocessing/random_crop.h"
#include "kiln/layers/preprocessing/random_flip.h"
#include "kiln/layers/preprocessing/random_rotation.h"
#include "kiln/layers/preprocessing/random_translation.h"
#include "kiln/layers/preprocessing/random_zoom.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"

namespace kiln {
namespace {

using layers::Dense;
using layers::Input;

TEST(RandomImageLayers, TrainInsideOneTraceDrawingAfreshEachStep) {
  random::set_seed(6);
  Sequential model(
      {Input({5, 6, 2}), layers::RandomFlip({.seed = 1}), layers::RandomCrop(4, 4, {.seed = 2}),
       layers::RandomContrast(0.3, {.seed = 3}), layers::RandomBrightness(0.2, {.seed = 4}),
       layers::RandomRotation(0.1, {.seed = 5}),
       layers::RandomTranslation(Config(0.1), Config(0.2), {.seed = 6}),
       layers::RandomZoom(Config(0.2), Config(), {.seed = 7}), layers::Flatten(), Dense(1)});
  model.compile({.optimizer = optimizers::get("sgd"), .loss = "mse"});
  model.trainer().optimizer().set_learning_rate(0.0);
  const Tensor x = random::uniform({8, 5, 6, 2}, 0, 255);
  const Tensor y = zeros({8, 1});
  const double first = model.train_on_batch({x}, {y}).at("loss");
  model.trainer().reset_metrics();
  const double second = model.train_on_batch({x}, {y}).at("loss");
  EXPECT_NE(first, second);
  EXPECT_EQ(model.trainer().train_stats().traces, 1);
}

}  // namespace
}  // namespace kiln
