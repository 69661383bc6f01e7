// Mean and Sum over plain values (the loss trackers' use), with Keras's docstring examples.
#include <gtest/gtest.h>

#include "kiln/training/metrics/reduction_metrics.h"

namespace kiln::metrics {
namespace {

TEST(MetricMean, KerasExamples) {
  Mean mean;
  mean.update_values(tensor({1, 3, 5, 7}));
  EXPECT_FLOAT_EQ(mean.result().item<float>(), 4.0f);
  mean.reset_state();
  mean.update_values(tensor({1, 3, 5, 7}), tensor({1, 1, 0, 0}));
  EXPECT_FLOAT_EQ(mean.result().item<float>(), 2.0f);

  Sum sum;
  sum.update_values(tensor({1, 3, 5, 7}), tensor({1, 1, 0, 0}));
  EXPECT_FLOAT_EQ(sum.result().item<float>(), 4.0f);
}

TEST(MetricMean, ScalarWeightCountsTheBatchAsThatManySamples) {
  // The trainer's loss tracker: a batch's mean loss weighted by its size.
  Mean loss;
  loss.update_values(scalar(2), scalar(3));
  loss.update_values(scalar(4), scalar(1));
  EXPECT_FLOAT_EQ(loss.result().item<float>(), 2.5f);
  // As in Keras, a scalar weight reduces the whole batch to one weighted value.
  Mean rows;
  rows.update_values(tensor({1, 2, 3, 5}, {2, 2}), scalar(2));
  EXPECT_FLOAT_EQ(rows.result().item<float>(), 2.75f);
}

TEST(MetricMean, ScalarsCountOnceAndStateIsNotTrainable) {
  Mean loss_tracker("loss");
  loss_tracker.update_values(scalar(2));
  loss_tracker.update_values(scalar(4));
  EXPECT_FLOAT_EQ(loss_tracker.result().item<float>(), 3.0f);
  ASSERT_EQ(loss_tracker.variables().size(), 2u);
  EXPECT_EQ(loss_tracker.variables()[0].name(), "loss/total");
  EXPECT_EQ(loss_tracker.variables()[1].name(), "loss/count");
  EXPECT_FALSE(loss_tracker.variables()[0].trainable());
}

}  // namespace
}  // namespace kiln::metrics
