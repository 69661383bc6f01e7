// MirroredStrategy's replica threads on the stand-in GPU (host_cuda.h): a replica on the CPU and
// one on cuda:0, whose copies of the variables live on the device and whose gradients meet the
// CPU's through host copies, train (and predict) as one device does on the whole global batches.
// The same run on a real GPU: tests/cuda/mirrored_gpu_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/core/error.h"

#include "kiln/framework/tensor/variable.h"
#include "tests/test_support/data_parallel_nets.h"

namespace kiln {
namespace {

using testing::expect_trains_as_one_device;
using testing::kGlobalBatch;
using testing::Net;

TEST(MirroredOnDevice, ACpuAndADeviceReplicaTrainAsOneDevice) {
  const auto mirrored = distribute::make_strategy("mirrored", {"cpu", "cuda:0"});
  ASSERT_NE(mirrored->replica_threads(), nullptr);
  EXPECT_TRUE(mirrored->replica_threads()->device(1).is_cuda());
  expect_trains_as_one_device(Net::cnn, 10 * kGlobalBatch, mirrored, 1e-5,
                              distribute::make_strategy("one_device", {"cuda:0"}));
}

// Replica 0 on the device: the CPU replica's predictions join the device's there.
TEST(MirroredOnDevice, ADeviceFirstReplicaJoinsThePredictionsOnTheDevice) {
  const auto mirrored = distribute::make_strategy("mirrored", {"cuda:0", "cpu"});
  ASSERT_NE(mirrored->replica_threads(), nullptr);
  EXPECT_TRUE(mirrored->replica_threads()->device(0).is_cuda());
  expect_trains_as_one_device(Net::mlp, 4 * kGlobalBatch, mirrored, 1e-5,
                              distribute::make_strategy("one_device", {"cuda:0"}));
}

// As TensorFlow's: a GPU's stream and library handles serve one thread.
TEST(MirroredOnDevice, AGpuNamedTwiceIsRefused) {
  try {
    distribute::make_strategy("mirrored", {"cuda:0", "cuda:0"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cuda:0 is named twice; a GPU takes one replica"));
  }
}

// Each replica sees its own copy's device, in the value and in the variable's meta (which the
// steps read to place the constants they add to it).
TEST(MirroredOnDevice, EveryReplicasCopyLivesOnItsDevice) {
  const Variable v(from_vector<float>({1, 2}, {2}));
  v.mirror({Device::cpu(), Device::cuda(0)});
  EXPECT_TRUE(v.meta().device.is_cpu());
  const MirrorScope second(1);
  EXPECT_EQ(v.value().device(), Device::cuda(0));
  EXPECT_EQ(v.meta().device, Device::cuda(0));
  EXPECT_EQ(v.value().to(Device::cpu()).to_vector<float>(), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace kiln
