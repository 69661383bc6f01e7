// KILN_CUDA_SYNC=1 (set_synchronous_kernels): a device kernel's fault, which a GPU reports only at
// the next synchronization, is caught right after the kernel that caused it and names that op,
// its operands and its output, eagerly and in a planned step. Off, kernels are not synchronized.
// The stand-in device (tests/devices/host_cuda.h) throws an injected fault at its next
// synchronization, as CUDA does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/engine/function/function.h"
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/ops/kernel_launch.h"
#include "kiln/framework/ops/ops.h"
#include "tests/devices/host_cuda.h"
#include "tests/test_support/expect_error.h"

namespace kiln::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kFault = "an illegal memory access was encountered (injected)";

class SynchronousKernels : public ::testing::Test {
 protected:
  void SetUp() override { set_synchronous_kernels(true); }
  void TearDown() override {
    set_synchronous_kernels(false);
    host_cuda_faults().inject("");
  }

  const Tensor a_ = ones({2, 3}, DType::f32, Device::cuda(0));
  const Tensor b_ = ones({3, 4}, DType::f32, Device::cuda(0));
};

TEST_F(SynchronousKernels, AnEagerFaultNamesTheOpAndItsOperands) {
  host_cuda_faults().inject(kFault);
  EXPECT_THAT(error_of([&] { (void)ops::matmul(a_, b_); }),
              AllOf(HasSubstr("kiln::ops::matmul on cuda:0"), HasSubstr("float32[2, 3]@cuda:0"),
                    HasSubstr("float32[3, 4]@cuda:0"), HasSubstr("output: float32[2, 4]@cuda:0"),
                    HasSubstr(kFault)));
}

TEST_F(SynchronousKernels, APlannedStepsFaultNamesItsOp) {
  auto f = function([](const Tensor& x, const Tensor& w) { return ops::matmul(x, w); });
  (void)f(a_, b_);  // traced and planned before the fault
  host_cuda_faults().inject(kFault);
  EXPECT_THAT(error_of([&] { (void)f(a_, b_); }),
              AllOf(HasSubstr("kiln::ops::matmul on cuda:0"), HasSubstr(kFault)));
}

TEST_F(SynchronousKernels, EveryDeviceKernelIsSynchronized) {
  const int64_t before = host_cuda_faults().synchronizations();
  (void)ops::relu(ops::matmul(a_, b_));
  EXPECT_EQ(host_cuda_faults().synchronizations() - before, 2);
}

TEST_F(SynchronousKernels, CpuKernelsAreNotSynchronized) {
  const int64_t before = host_cuda_faults().synchronizations();
  (void)ops::matmul(ones({2, 3}), ones({3, 4}));
  EXPECT_EQ(host_cuda_faults().synchronizations(), before);
}

TEST_F(SynchronousKernels, OffAFaultSurfacesLaterWithoutTheOp) {
  set_synchronous_kernels(false);
  const int64_t before = host_cuda_faults().synchronizations();
  host_cuda_faults().inject(kFault);
  (void)ops::matmul(a_, b_);
  EXPECT_EQ(host_cuda_faults().synchronizations(), before);
  const std::string later = error_of([] { backend_for(Device::cuda(0)).synchronize(0); });
  EXPECT_THAT(later, AllOf(HasSubstr(kFault), Not(HasSubstr("matmul"))));
}

}  // namespace
}  // namespace kiln::testing
