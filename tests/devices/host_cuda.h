#pragma once
// A stand-in CUDA device for machines without a GPU: cuda:0 tensors live in host memory and CUDA
// ops run the CPU's kernels on them. The placement rules still hold (an op refuses operands on
// two devices, data<T>() refuses a device tensor), so a training run that leaves a tensor on the
// CPU, or reads device memory on the host, fails here as it would on a GPU. Installed for the
// whole device_tests binary (one process, one op table).
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

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

// A GPU reports a kernel's fault at the next synchronization, not at the launch: a fault
// injected here is thrown by the stand-in's next synchronize, once, as CUDA's would be.
class HostCudaFaults {
 public:
  void inject(std::string fault);
  // Throws the injected fault, if any, and counts the call.
  void on_synchronize();
  int64_t synchronizations() const { return synchronizations_; }

 private:
  std::mutex mutex_;
  std::string pending_;
  std::atomic<int64_t> synchronizations_{0};
};
HostCudaFaults& host_cuda_faults();

}  // namespace kiln::testing
