// MirroredStrategy's replica threads on the stand-in GPU (host_cuda.h): two replicas on cuda:0
// keep their copies of the variables on the device and reduce their gradients through host
// copies, and train as one device does on the whole global batches. The same run on a real GPU:
// tests/cuda/mirrored_gpu_test.cpp.
#include <gtest/gtest.h>

#include "kiln/framework/tensor/variable.h"
#include "tests/test_support/data_parallel_nets.h"

namespace kiln {
namespace {

using testing::expect_same_training;
using testing::kGlobalBatch;
using testing::Net;
using testing::train;
using testing::Trained;

TEST(MirroredOnDevice, TwoReplicasOnTheDeviceTrainAsOneDevice) {
  const int64_t rows = 10 * kGlobalBatch;
  const Trained one = train(Net::cnn, rows, distribute::make_strategy("one_device", {"cuda:0"}));
  const auto mirrored = distribute::make_strategy("mirrored", {"cuda:0", "cuda:0"});
  ASSERT_NE(mirrored->replica_threads(), nullptr);
  expect_same_training(train(Net::cnn, rows, mirrored), one, 1e-5);
}

TEST(MirroredOnDevice, EveryReplicasCopyLivesOnItsDevice) {
  const Variable v(from_vector<float>({1, 2}, {2}).to(Device::cuda(0)));
  v.mirror({Device::cuda(0), Device::cuda(0)});
  const MirrorScope second(1);
  EXPECT_EQ(v.value().device(), Device::cuda(0));
  EXPECT_EQ(v.value().to(Device::cpu()).to_vector<float>(), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace kiln
