// Misuse is an error that names the loss and the shapes or values involved.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "kiln/losses/functional.h"
#include "kiln/losses/losses.h"
#include "tests/test_support/expect_error.h"

namespace kiln::losses {
namespace {

using kiln::testing::error_of;
using ::testing::HasSubstr;

TEST(LossErrors, ShapeMismatchNamesTheLossAndBothShapes) {
  const std::string mse = error_of([] { MeanSquaredError()(zeros({4, 3}), zeros({4, 2})); });
  EXPECT_THAT(mse, HasSubstr("mean_squared_error: y_true of shape [4, 3] and y_pred of shape "
                             "[4, 2] must have the same shape"));
  const std::string cce = error_of([] { categorical_crossentropy(zeros({4, 5}), zeros({5, 4})); });
  EXPECT_THAT(cce, HasSubstr("categorical_crossentropy: y_true of shape [4, 5] and y_pred of "
                             "shape [5, 4]"));
  const std::string sparse = error_of([] {
    SparseCategoricalCrossentropy()(zeros({4, 2}, DType::i32), zeros({4, 3}));
  });
  EXPECT_THAT(sparse, HasSubstr("sparse_categorical_crossentropy: y_true of shape [4, 2] and "
                                "y_pred of shape [4, 3] do not match"));
}

TEST(LossErrors, SampleWeightAndMaskShapesAreChecked) {
  const std::string weight = error_of([] { Hinge()(zeros({4, 3}), zeros({4, 3}), ones({3})); });
  EXPECT_THAT(weight, HasSubstr("loss 'hinge': sample_weight of shape [3] does not broadcast to "
                                "the per-sample losses of shape [4]"));
  const std::string mask = error_of([] {
    MeanAbsoluteError()(zeros({4, 3}), zeros({4, 3}), {}, ones({4, 3}, DType::boolean));
  });
  EXPECT_THAT(mask, HasSubstr("loss 'mean_absolute_error': mask of shape [4, 3] does not "
                              "broadcast to the per-sample losses of shape [4]"));
}

TEST(LossErrors, InvalidArgumentsAreRejected) {
  EXPECT_THAT(error_of([] { BinaryCrossentropy({.label_smoothing = 1.5}); }),
              HasSubstr("loss 'binary_crossentropy': label_smoothing must be in [0, 1], got 1.5"));
  EXPECT_THAT(error_of([] { Huber({.delta = -1.0}); }),
              HasSubstr("Huber 'huber_loss': delta must be positive, got -1"));
  EXPECT_THAT(error_of([] { MeanSquaredError()(Tensor(), zeros({2})); }),
              HasSubstr("loss 'mean_squared_error': y_true and y_pred must be defined"));
}

}  // namespace
}  // namespace kiln::losses
