// The NCCL communicator on the GPUs of this machine: its collectives with one rank (the lent
// GPU machines have one GPU), and the collective ops reducing CUDA tensors through it. Skips
// without a GPU (scripts/gpu-test runs it on one). MirroredStrategy's GPUs, a communicator each
// from one group init: mirrored_gpu_test.cpp.
#include <gtest/gtest.h>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/distributed/nccl.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

using distributed::ReduceOp;

std::shared_ptr<distributed::Communicator> one_rank() {
  return distributed::nccl_world(std::make_shared<distributed::LocalCommunicator>(), 0);
}

TEST(Nccl, OneRanksCollectivesOnAGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device is visible";
  const auto nccl = one_rank();
  EXPECT_EQ(nccl->backend(), "nccl");
  EXPECT_TRUE(nccl->takes(Device::cuda(0)));
  EXPECT_TRUE(nccl->takes(Device::cpu()));  // through the bootstrap communicator
  for (const ReduceOp op : {ReduceOp::sum, ReduceOp::mean, ReduceOp::max}) {
    const Tensor x = from_vector<float>({1.5f, -2, 3}, {3}).to(Device::cuda(0));
    nccl->all_reduce(x, op, "test");
    EXPECT_EQ(x.to(Device::cpu()).to_vector<float>(), (std::vector<float>{1.5f, -2, 3}))
        << distributed::reduce_op_name(op);
  }
  const Tensor b = from_vector<int32_t>({4, 5}, {2}).to(Device::cuda(0));
  nccl->broadcast(b, 0, "test");
  EXPECT_EQ(b.to(Device::cpu()).to_vector<int32_t>(), (std::vector<int32_t>{4, 5}));
  const Tensor gathered = nccl->all_gather(from_vector<float>({7}, {1}).to(Device::cuda(0)), "g");
  EXPECT_EQ(gathered.shape(), Shape({1, 1}));
  EXPECT_EQ(gathered.to(Device::cpu()).to_vector<float>(), (std::vector<float>{7}));
  // Host tensors go through the bootstrap communicator.
  const Tensor host = from_vector<double>({2}, {1});
  nccl->all_reduce(host, ReduceOp::sum, "host");
  EXPECT_EQ(host.to_vector<double>(), (std::vector<double>{2}));
}

TEST(Nccl, TheAllReduceOpReducesCudaTensorsInPlaceOnTheGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device is visible";
  distributed::set_world(one_rank());
  const Tensor x = from_vector<float>({1, 2, 3, 4}, {2, 2}).to(Device::cuda(0));
  const Tensor y = ops::all_reduce(x * 2.0);
  distributed::set_world(nullptr);
  EXPECT_EQ(y.device(), Device::cuda(0));
  EXPECT_EQ(y.to(Device::cpu()).to_vector<float>(), (std::vector<float>{2, 4, 6, 8}));
}

}  // namespace
}  // namespace kiln
