// A replica's loss is its share of the global batch's (docs/distributed.md): the divisors are
// summed over the replicas, and a loss already reduced to a mean is divided by their number.
// One process stands for the replicas here: its sums over "all replicas" are its own values.
#include <gtest/gtest.h>

#include "kiln/framework/distributed/replica_context.h"
#include "kiln/losses/reduction.h"

namespace kiln::losses {
namespace {

double reduce(const Tensor& values, Reduction reduction, int replicas) {
  const distributed::ReplicaScope scope({0, replicas});
  return reduce_weighted_values(values, Tensor(), Tensor(), reduction, "test").item<double>();
}

TEST(ReplicaShare, AScalarMeanIsDividedByTheReplicasAndASumIsNot) {
  const Tensor mean = scalar(3.0);
  EXPECT_DOUBLE_EQ(reduce(mean, Reduction::sum_over_batch_size, 1), 3.0);
  EXPECT_DOUBLE_EQ(reduce(mean, Reduction::sum_over_batch_size, 2), 1.5);
  EXPECT_DOUBLE_EQ(reduce(mean, Reduction::sum, 2), 3.0);
}

TEST(ReplicaShare, PerSampleLossesDivideByTheGlobalCount) {
  // Alone, the global count is the local one: the mean as on one device.
  const Tensor values = from_vector<float>({1, 2, 3, 6}, {4});
  EXPECT_DOUBLE_EQ(reduce(values, Reduction::sum_over_batch_size, 2), 3.0);
  EXPECT_DOUBLE_EQ(reduce(values, Reduction::sum, 2), 12.0);
}

}  // namespace
}  // namespace kiln::losses
