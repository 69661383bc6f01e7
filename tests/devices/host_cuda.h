#pragma once
// A stand-in CUDA device for machines without a GPU: cuda:0 tensors live in host memory and CUDA
// ops run the CPU's kernels on them. The placement rules still hold (an op refuses operands on
// two devices, data<T>() refuses a device tensor), so a training run that leaves a tensor on the
// CPU, or reads device memory on the host, fails here as it would on a GPU. Installed for the
// whole device_tests binary (one process, one op table).
#include <atomic>
#include <cstdint>

#include <gtest/gtest.h>

namespace kiln::testing {

class HostCudaEnvironment : public ::testing::Environment {
 public:
  void SetUp() override;
  void TearDown() override;
};

// Copies between the host and the stand-in device since the process started: a training step
// that reads device memory on the host shows up here.
struct HostCudaCopies {
  std::atomic<int64_t> to_host{0};
  std::atomic<int64_t> from_host{0};
};
HostCudaCopies& host_cuda_copies();

}  // namespace kiln::testing
