// The CUDA device itself: placement errors, copies, grids, the caching allocator (the ops are in
// parity_table_test.cpp). Tests that need a GPU skip where none is visible; scripts/gpu-test
// runs them on a GPU machine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/ops/ops.h"
#include "tests/cuda/device_compare.h"

namespace kiln {
namespace {

using testing::expect_matches;
using testing::values;

using ::testing::HasSubstr;

const Device kGpu = Device::cuda(0);

class Cuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available())
      GTEST_SKIP() << "no CUDA device visible: these tests need an NVIDIA GPU and driver "
                      "(scripts/gpu-test runs them on a GPU machine)";
  }
};

const std::vector<DType> kAll{DType::f32, DType::f64, DType::f16, DType::bf16,
                              DType::i32, DType::i64, DType::u8,  DType::boolean};

TEST(CudaDevice, InvisibleDeviceIsAClearError) {
  // cuda:0 where no GPU is visible; past the last device where one is.
  const Device missing = Device::cuda(cuda_available() ? 4096 : 0);
  try {
    (void)zeros({2}, DType::f32, missing);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(missing.to_string()));
    EXPECT_THAT(e.what(), HasSubstr("CUDA device(s) are visible"));
  }
}

TEST_F(Cuda, RoundTripsThroughTheDevice) {
  for (DType dtype : kAll) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const Tensor host = values({3, 5}, dtype, dtype == DType::u8);
    const Tensor device = host.to(kGpu);
    EXPECT_EQ(device.device(), kGpu);
    expect_matches(device, host);
    expect_matches(device.clone(), host);
    // A view starts at an offset into the same device storage.
    expect_matches(device.view({2, 5}, 5), host.view({2, 5}, 5));
  }
}

TEST_F(Cuda, CoversTensorsLargerThanOneGrid) {
  // More elements than the launch's blocks times threads, so the grid-stride loop wraps.
  const int64_t n = (int64_t{1} << 24) + 1000;
  const std::vector<float> out = ops::add(ones({n}, DType::f32, kGpu), 1.0).to_vector<float>();
  EXPECT_EQ(std::count(out.begin(), out.end(), 2.0f), n);
}

TEST_F(Cuda, AllocatorReusesFreedBlocks) {
  Allocator& alloc = backend_for(kGpu).allocator(0);
  void* first = alloc.allocate(1000);
  alloc.deallocate(first, 1000);
  // 1000 and 1024 bytes share a size class: the freed block comes back.
  void* again = alloc.allocate(1024);
  EXPECT_EQ(again, first);
  void* other = alloc.allocate(1000);
  EXPECT_NE(other, again);
  alloc.deallocate(again, 1024);
  alloc.deallocate(other, 1000);

  // The same through tensors: a step that frees and reallocates reuses the memory.
  const void* data = Tensor::empty({256, 256}, DType::f32, kGpu).raw_data();
  EXPECT_EQ(Tensor::empty({256, 256}, DType::f32, kGpu).raw_data(), data);
}

TEST_F(Cuda, AllocationFailureNamesDeviceAndSize) {
  const size_t bytes = size_t{1} << 50;  // a petabyte
  try {
    (void)backend_for(kGpu).allocator(0).allocate(bytes);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cuda:0"));
    EXPECT_THAT(e.what(), HasSubstr(std::to_string(bytes)));
  }
}

}  // namespace
}  // namespace kiln
