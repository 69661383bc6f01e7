#include "tests/losses/golden_cases.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>

#include "kiln/framework/core/config.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/registry.h"

namespace kiln::losses::testing {
namespace {
#include "tests/losses/loss_goldens.inc"
}  // namespace

const std::vector<LossGolden>& loss_goldens() {
  return kLossGoldens;
}
const std::vector<FunctionGolden>& function_goldens() {
  return kFunctionGoldens;
}

Tensor golden_labels(const char* label_dtype, const std::vector<double>& values,
                     const std::vector<int64_t>& shape, DType dtype) {
  const std::string name = label_dtype;
  return from_vector(values, Shape(shape), name == "float" ? dtype : dtype_from_name(name));
}

GoldenInputs golden_inputs(const LossGolden& g, DType dtype) {
  GoldenInputs in;
  in.y_true = golden_labels(g.label_dtype, g.y_true, g.true_shape, dtype);
  in.y_pred = from_vector(g.y_pred, Shape(g.pred_shape), dtype);
  if (!g.sample_weight.empty())
    in.sample_weight = from_vector(g.sample_weight, Shape(g.weight_shape), dtype);
  if (!g.mask.empty())
    in.mask = ops::cast(from_vector(g.mask, Shape(g.mask_shape)), DType::boolean);
  return in;
}

LossPtr golden_loss(const LossGolden& g) {
  return from_config(Config::from_json(g.config));
}

std::string golden_test_name(const ::testing::TestParamInfo<LossGolden>& info) {
  std::string name;
  for (const char c : std::string(info.param.label)) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      name += c;
    else if (!name.empty() && name.back() != '_')
      name += '_';
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name;
}

void expect_close(const Tensor& got, const std::vector<double>& want, double tol,
                  const std::string& what) {
  const std::vector<double> values = ops::cast(got, DType::f64).to_vector<double>();
  ASSERT_EQ(values.size(), want.size()) << what;
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_NEAR(values[i], want[i], tol * (std::abs(want[i]) + 1e-3)) << what << ", element " << i;
}

}  // namespace kiln::losses::testing
