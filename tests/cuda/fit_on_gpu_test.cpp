// The reference fits (tests/devices/reference_fits.h) on a real GPU: the MLP, the CNN with
// BatchNormalization and Dropout, and the bucketed LSTM equal their CPU fits within 1e-4 over
// kSteps steps. (tests/devices/ runs the same fits on a stand-in GPU on every machine.)
#include <gtest/gtest.h>

#include "kiln/framework/backends/backend.h"
#include "tests/devices/reference_fits.h"

namespace kiln::testing {
namespace {

class FitOnGpu : public ::testing::TestWithParam<ReferenceModel> {};

TEST_P(FitOnGpu, EqualsTheCpuFit) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device is visible";
  const FitRecord cpu = reference_fit(GetParam(), "cpu");
  const FitRecord gpu = reference_fit(GetParam(), "cuda:0");
  EXPECT_EQ(gpu.device, Device::cuda(0));
  expect_same_fit(gpu, cpu, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(ReferenceModels, FitOnGpu,
                         ::testing::Values(ReferenceModel::mlp, ReferenceModel::cnn,
                                           ReferenceModel::lstm),
                         [](const auto& param_info) { return to_string(param_info.param); });

}  // namespace
}  // namespace kiln::testing
