// Every op with a CPU kernel has a CUDA kernel, or is listed below with why it has none yet: a
// new CPU kernel without a CUDA one fails here until it gets one or a reason, and an op that
// gains its CUDA kernel must leave the list. Registration touches no CUDA API, so this runs on
// machines without a GPU too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

constexpr auto kCpu = static_cast<size_t>(DeviceType::cpu);
constexpr auto kCuda = static_cast<size_t>(DeviceType::cuda);

// What is left of issue 22's backend work, op by op.
const std::map<OpId, std::string_view>& not_on_cuda() {
  constexpr std::string_view convolution = "cuDNN convolutions, not wired";
  constexpr std::string_view pooling = "cuDNN pooling, not wired";
  constexpr std::string_view argmax_pooling =
      "kiln's own kernel (cuDNN keeps no argmax), not written";
  static const std::map<OpId, std::string_view> ops{
      {OpId::conv2d, convolution},
      {OpId::conv2d_backprop_input, convolution},
      {OpId::conv2d_backprop_filter, convolution},
      {OpId::conv2d_bias_activation, "cuDNN's fused convolution, bias and activation, not wired"},
      {OpId::max_pool2d, pooling},
      {OpId::max_pool2d_grad, pooling},
      {OpId::avg_pool2d, pooling},
      {OpId::avg_pool2d_grad, pooling},
      {OpId::max_pool2d_with_argmax, argmax_pooling},
      {OpId::max_pool2d_grad_from_argmax, argmax_pooling},
      {OpId::fused_elementwise, "programs compiled with NVRTC at plan time, not written"},
  };
  return ops;
}

TEST(CudaKernelCoverage, EveryCpuKernelHasACudaKernelOrAReason) {
  std::vector<std::string> missing, stale;
  int cpu_kernels = 0, cuda_kernels = 0;
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpId>(i);
    const OpDef& def = op_def(op);
    const bool cpu = def.kernels[kCpu] != nullptr;
    const bool cuda = def.kernels[kCuda] != nullptr;
    cpu_kernels += cpu;
    cuda_kernels += cpu && cuda;
    const bool listed = not_on_cuda().count(op) > 0;
    if (cpu && !cuda && !listed) missing.push_back(def.name);
    if (listed && (cuda || !cpu)) stale.push_back(def.name);
  }
  EXPECT_THAT(missing, ::testing::IsEmpty())
      << "ops with a CPU kernel but no CUDA kernel and no reason in not_on_cuda()";
  EXPECT_THAT(stale, ::testing::IsEmpty())
      << "ops listed in not_on_cuda() that have a CUDA kernel now (or no CPU kernel)";
  RecordProperty("cuda_kernels", cuda_kernels);
  RecordProperty("cpu_kernels", cpu_kernels);
  std::printf("CUDA kernels for %d of the %d ops with a CPU kernel\n", cuda_kernels, cpu_kernels);
}

}  // namespace
}  // namespace kiln
