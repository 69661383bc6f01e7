// DeviceScope: where tensors go when no device is named, per thread, nested; a device the build
// or machine lacks is refused when the scope opens, by name.
#include <gtest/gtest.h>

#include <thread>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/device.h"
#include "kiln/framework/random/random.h"
#include "kiln/framework/tensor/tensor.h"
#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

using testing::expect_error;

TEST(DeviceScope, OutsideEveryScopeTensorsGoToTheCpu) {
  EXPECT_EQ(default_device(), Device::cpu());
  EXPECT_FALSE(scoped_device().has_value());
  EXPECT_TRUE(zeros({2}).device().is_cpu());
}

TEST(DeviceScope, ScopesNestAndRestoreTheOuterDevice) {
  {
    const DeviceScope outer("cpu");
    EXPECT_EQ(scoped_device(), Device::cpu());
    {
      const DeviceScope inner(Device::cpu());
      EXPECT_EQ(default_device(), Device::cpu());
      EXPECT_TRUE(random::uniform({3}).device().is_cpu());
    }
    EXPECT_EQ(scoped_device(), Device::cpu());
  }
  EXPECT_FALSE(scoped_device().has_value());
}

TEST(DeviceScope, IsPerThread) {
  const DeviceScope scope("cpu");
  bool other_thread_scoped = true;
  std::thread([&] { other_thread_scoped = scoped_device().has_value(); }).join();
  EXPECT_FALSE(other_thread_scoped);
  EXPECT_TRUE(scoped_device().has_value());
}

TEST(DeviceScope, AMissingGpuIsRefusedByName) {
  if (cuda_available()) GTEST_SKIP() << "a GPU is visible";
  expect_error([] { const DeviceScope gpu("cuda:0"); }, "device cuda:0 requested");
  expect_error([] { const DeviceScope gpu("tpu"); }, "tpu");
  EXPECT_FALSE(scoped_device().has_value());  // a refused scope leaves none behind
}

}  // namespace
}  // namespace kiln
