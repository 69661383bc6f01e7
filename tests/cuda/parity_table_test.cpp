// The backend parity table (parity_table.h): it covers every op with a CUDA kernel, every case
// runs on the CPU (so the table itself is checked on machines without a GPU), and on a GPU every
// case's values and gradients match the CPU's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/ops.h"
#include "tests/cuda/device_compare.h"
#include "tests/cuda/parity_table.h"

namespace kiln::testing {
namespace {

// The case's gradients with respect to its floating inputs, for the cotangent `values` gives
// over its output (so every output element weighs differently), on the inputs' device.
std::vector<Tensor> gradients_of(const ParityCase& c, const std::vector<Tensor>& inputs) {
  std::vector<size_t> floating;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (is_floating(inputs[i].dtype())) floating.push_back(i);
  const Tensor out = c.fn(inputs);
  const Tensor cotangent = values(out.shape(), out.dtype(), false).to(out.device());
  std::vector<Tensor> xs;
  for (const size_t i : floating) xs.push_back(inputs[i]);
  return grad(
      [&](const std::vector<Tensor>& floating_inputs) {
        std::vector<Tensor> all = inputs;
        for (size_t k = 0; k < floating.size(); ++k) all[floating[k]] = floating_inputs[k];
        return ops::sum(c.fn(all) * cotangent);
      },
      xs);
}

std::vector<Tensor> on(const std::vector<Tensor>& tensors, const Device& device) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.to(device));
  return out;
}

TEST(ParityTable, CoversEveryOpWithACudaKernel) {
  std::set<OpId> covered;
  for (const ParityCase& c : parity_cases()) covered.insert(c.op);
  std::vector<std::string> missing;
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpId>(i);
    if (op_def(op).kernels[static_cast<size_t>(DeviceType::cuda)] != nullptr && !covered.count(op))
      missing.push_back(op_def(op).name);
  }
  EXPECT_THAT(missing, ::testing::IsEmpty()) << "ops with a CUDA kernel but no parity case";
}

TEST(ParityTable, EveryCaseRunsOnTheCpu) {
  for (const ParityCase& c : parity_cases()) {
    SCOPED_TRACE(c.label);
    const Tensor out = c.fn(c.inputs);
    EXPECT_TRUE(out.defined());
    if (c.gradients) {
      for (const Tensor& g : gradients_of(c, c.inputs)) EXPECT_TRUE(g.defined());
    }
  }
}

TEST(ParityTable, CudaMatchesTheCpu) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device visible: the parity table needs an NVIDIA GPU and driver "
                    "(scripts/gpu-test runs it on a GPU machine)";
  const Device gpu = Device::cuda(0);
  for (const ParityCase& c : parity_cases()) {
    SCOPED_TRACE(c.label);
    const std::vector<Tensor> inputs = on(c.inputs, gpu);
    const Tensor out = c.fn(inputs);
    ASSERT_EQ(out.device(), gpu);
    expect_matches(out, c.fn(c.inputs));
    if (!c.gradients) continue;
    const std::vector<Tensor> got = gradients_of(c, inputs);
    const std::vector<Tensor> want = gradients_of(c, c.inputs);
    ASSERT_EQ(got.size(), want.size());
    // A gradient sums products of the cotangent with the op's derivative: a few roundings more.
    for (size_t k = 0; k < want.size(); ++k) expect_matches(got[k], want[k], 8.0);
  }
}

}  // namespace
}  // namespace kiln::testing
