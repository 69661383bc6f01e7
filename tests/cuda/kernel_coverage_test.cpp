// Every op with a CPU kernel has a CUDA kernel: a new CPU kernel without a CUDA one fails here
// until it gets one. (With every op covered, compile chooses a visible GPU unasked.)
// Registration touches no CUDA API, so this runs on machines without a GPU too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

TEST(CudaKernelCoverage, EveryCpuKernelHasACudaKernel) {
  EXPECT_THAT(ops_without_kernel(DeviceType::cuda), ::testing::IsEmpty())
      << "ops with a CPU kernel but no CUDA kernel";
  int cpu_kernels = 0;
  for (const OpDef& def : op_table().defs())
    cpu_kernels += def.kernels[static_cast<size_t>(DeviceType::cpu)] != nullptr;
  RecordProperty("cpu_kernels", cpu_kernels);
  std::printf("CUDA kernels for all %d ops with a CPU kernel\n", cpu_kernels);
}

}  // namespace
}  // namespace kiln
