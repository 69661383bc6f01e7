// MirroredStrategy on GPUs, a thread per replica in this process: a CPU replica beside one on
// cuda:0 (their gradients meet in host memory), which the lent one-GPU machines run, and one
// replica per GPU over NCCL (a communicator each), which runs wherever cudaGetDeviceCount() >= 2.
// Both end within rounding of one device on the whole global batches. Skips without a GPU.
#include <gtest/gtest.h>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/distributed/nccl.h"
#include "kiln/framework/distributed/thread_group.h"
#include "tests/test_support/data_parallel_nets.h"

namespace kiln {
namespace {

using testing::expect_trains_as_one_device;
using testing::kRows;
using testing::Net;

int gpus() {
  return cuda_available() ? backend_for(Device::cuda(0)).device_count() : 0;
}

TEST(NcclGroup, OneGpusGroupReducesInPlace) {
  if (gpus() == 0) GTEST_SKIP() << "no CUDA device is visible";
  const auto ranks = distributed::nccl_group(distributed::thread_group(1), {0});
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0]->backend(), "nccl");
  const Tensor x = from_vector<float>({1, -2}, {2}).to(Device::cuda(0));
  ranks[0]->all_reduce(x, distributed::ReduceOp::sum, "test");
  EXPECT_EQ(x.to(Device::cpu()).to_vector<float>(), (std::vector<float>{1, -2}));
}

TEST(MirroredOnGpus, ACpuAndAGpuReplicaTrainAsOneDevice) {
  if (gpus() == 0) GTEST_SKIP() << "no CUDA device is visible";
  const auto mirrored = distribute::make_strategy("mirrored", {"cpu", "cuda:0"});
  EXPECT_EQ(mirrored->communicator().backend(), "threads");
  expect_trains_as_one_device(Net::mlp, kRows, mirrored, 1e-4,
                              distribute::make_strategy("one_device", {"cuda:0"}));
}

TEST(MirroredOnGpus, EveryGpuIsAReplicaOverNccl) {
  if (gpus() < 2) GTEST_SKIP() << gpus() << " GPU(s) here; MirroredStrategy over NCCL needs two";
  const auto mirrored = distribute::make_strategy("mirrored", {});
  EXPECT_EQ(mirrored->num_replicas_in_sync(), gpus());
  EXPECT_EQ(mirrored->communicator().backend(), "nccl");
  for (const Net net : {Net::mlp, Net::cnn})
    expect_trains_as_one_device(net, kRows, mirrored, 1e-4,
                                distribute::make_strategy("one_device", {"cuda:0"}));
}

}  // namespace
}  // namespace kiln
