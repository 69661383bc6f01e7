// The collective ops and the local communicator (one process, one rank): values, gradients, and
// the start/wait hand-over. Reductions across ranks run under mpirun (tests/distributed/).
#include <gtest/gtest.h>

#include "kiln/framework/distributed/communicator.h"
#include "kiln/framework/distributed/pending_reductions.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"
#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

using distributed::ReduceOp;

TEST(Collectives, OneRankReducesToItsOwnValues) {
  const Tensor x = from_vector<float>({1.5f, -2, 3}, {3});
  for (const ReduceOp op : {ReduceOp::sum, ReduceOp::mean, ReduceOp::max})
    EXPECT_EQ(ops::all_reduce(x, op).to_vector<float>(), x.to_vector<float>())
        << distributed::reduce_op_name(op);
}

TEST(Collectives, HalvesReduceAsFloat32AndComeBackInTheirDtype) {
  const Tensor x = ops::cast(from_vector<float>({0.5f, 2}, {2}), DType::bf16);
  const Tensor y = ops::all_reduce(x);
  EXPECT_EQ(y.dtype(), DType::bf16);
  EXPECT_EQ(ops::cast(y, DType::f32).to_vector<float>(), (std::vector<float>{0.5f, 2}));
}

TEST(Collectives, StartAndWaitLeaveTheInputUntouched) {
  const Tensor x = from_vector<double>({1, 2, 3, 4}, {2, 2});
  const Tensor started = ops::all_reduce_start(x, ReduceOp::sum, 0);
  const Tensor done = ops::all_reduce_wait(started, 0);
  EXPECT_EQ(done.shape(), x.shape());
  EXPECT_EQ(done.to_vector<double>(), x.to_vector<double>());
  EXPECT_NE(done.raw_data(), x.raw_data());
}

TEST(Collectives, AWaitWithoutItsStartIsRefused) {
  const Tensor x = from_vector<float>({1}, {1});
  testing::expect_error([&] { (void)ops::all_reduce_wait(x); }, "no all_reduce_start issued");
}

TEST(Collectives, SumAndMeanGradientsAreReducedGradients) {
  for (const ReduceOp op : {ReduceOp::sum, ReduceOp::mean}) {
    testing::expect_gradients_match(
        [op](const std::vector<Tensor>& in) { return ops::all_reduce(in[0] * in[0], op); },
        {from_vector<double>({0.5, -1.25, 2}, {3})});
  }
}

TEST(Collectives, MaxHasNoGradient) {
  const Tensor x = from_vector<double>({1, 2}, {2});
  testing::expect_error(
      [&] {
        (void)grad(
            [](const std::vector<Tensor>& in) {
              return ops::sum(ops::all_reduce(in[0], ReduceOp::max));
            },
            {x});
      },
      "max has no gradient");
}

TEST(Collectives, GlobalSumIsTheIdentityWithOneReplica) {
  const Tensor x = from_vector<float>({4}, {1});
  EXPECT_EQ(distributed::global_sum(x).raw_data(), x.raw_data());
  const distributed::ReplicaScope scope({0, 1});
  EXPECT_EQ(distributed::global_sum(x).raw_data(), x.raw_data());
  EXPECT_EQ(distributed::replica_context().count, 1);
}

TEST(Collectives, TheLocalCommunicatorGathersOneRow) {
  distributed::LocalCommunicator local;
  const Tensor gathered = local.all_gather(from_vector<int32_t>({7, 8}, {2}), "test");
  EXPECT_EQ(gathered.shape(), Shape({1, 2}));
  EXPECT_EQ(gathered.to_vector<int32_t>(), (std::vector<int32_t>{7, 8}));
  EXPECT_EQ(distributed::world().size(), 1);
}

}  // namespace
}  // namespace kiln
