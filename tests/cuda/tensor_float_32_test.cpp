// TF32 on a GPU (framework/core/tensor_float_32.h): off by default, float32 matmuls and
// convolutions give the CPU's numbers; on, they run on tensor cores, whose operands keep 10
// mantissa bits. Operands of 1 + 2^-12 show which ran: each product is 1 + 2^-11 in float32 and 1
// in TF32, so a sum of K of them is K(1 + 2^-11) against K, 4.9e-4 apart.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/tensor_float_32.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

constexpr double kOperand = 1.0 + 1.0 / 4096;

// The largest relative difference between a GPU result and the CPU's.
double largest_relative_difference(const Tensor& gpu, const Tensor& cpu) {
  const std::vector<double> g = gpu.to_vector<double>(), c = cpu.to_vector<double>();
  double largest = 0;
  for (size_t i = 0; i < c.size(); ++i)
    largest = std::max(largest, std::abs(g[i] - c[i]) / std::abs(c[i]));
  return largest;
}

class TensorFloat32 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device visible";
  }
  void TearDown() override { enable_tensor_float_32_execution(false); }

  // f's result on cuda:0 against the CPU's: off, then on.
  template <typename F>
  void expect_tensor_cores_only_when_enabled(const std::vector<Tensor>& operands, F f) {
    std::vector<Tensor> on_gpu;
    for (const Tensor& t : operands) on_gpu.push_back(t.to(Device::cuda(0)));
    const Tensor cpu = f(operands);
    EXPECT_FALSE(tensor_float_32_execution_enabled());
    EXPECT_LT(largest_relative_difference(f(on_gpu), cpu), 1e-6);
    enable_tensor_float_32_execution(true);
    const double tf32 = largest_relative_difference(f(on_gpu), cpu);
    EXPECT_GT(tf32, 4e-4);
    EXPECT_LT(tf32, 6e-4);
  }
};

TEST_F(TensorFloat32, Matmul) {
  expect_tensor_cores_only_when_enabled(
      {full({256, 512}, kOperand, DType::f32), full({512, 256}, kOperand, DType::f32)},
      [](const std::vector<Tensor>& x) { return ops::matmul(x[0], x[1]); });
}

TEST_F(TensorFloat32, Conv2d) {
  expect_tensor_cores_only_when_enabled(
      {full({8, 16, 16, 32}, kOperand, DType::f32), full({3, 3, 32, 64}, kOperand, DType::f32)},
      [](const std::vector<Tensor>& x) { return ops::conv2d(x[0], x[1]); });
}

}  // namespace
}  // namespace kiln
