// Mixed precision: float16 and bfloat16 predictions compute in float32 and give a float32 loss
// equal to Keras's float32 result, on the golden inputs exact in the 16-bit format.
#include <gtest/gtest.h>

#include <string>

#include "kiln/framework/ops/ops.h"
#include "tests/losses/golden_cases.h"

namespace kiln::losses::testing {
namespace {

bool exact(const Tensor& half, const Tensor& original) {
  return ops::cast(half, DType::f64).to_vector<double>() ==
         ops::cast(original, DType::f64).to_vector<double>();
}

class LossMixedPrecision : public ::testing::TestWithParam<LossGolden> {};

TEST_P(LossMixedPrecision, HalfPredictionsGiveFloat32Losses) {
  const LossGolden& g = GetParam();
  const LossPtr loss = golden_loss(g);
  const GoldenInputs in = golden_inputs(g, DType::f32);
  for (const DType half : {DType::f16, DType::bf16}) {
    SCOPED_TRACE(dtype_name(half));
    // Float labels come in the same 16-bit dtype, as a mixed-precision pipeline gives them.
    const Tensor y_pred = ops::cast(in.y_pred, half);
    const Tensor y_true = is_floating(in.y_true.dtype()) ? ops::cast(in.y_true, half) : in.y_true;
    // Inputs beyond the format's precision would change the loss itself.
    if (!exact(y_pred, in.y_pred) || !exact(y_true, in.y_true)) continue;
    const Tensor value = (*loss)(y_true, y_pred, in.sample_weight, in.mask);
    EXPECT_EQ(value.dtype(), DType::f32);
    expect_close(value, g.f32.loss, 1e-5, "loss");
  }
}

INSTANTIATE_TEST_SUITE_P(Keras, LossMixedPrecision, ::testing::ValuesIn(loss_goldens()),
                         golden_test_name);

TEST(LossDTypes, Float64StaysFloat64) {
  const LossGolden& g = loss_goldens().front();
  const GoldenInputs in = golden_inputs(g, DType::f64);
  EXPECT_EQ((*golden_loss(g))(in.y_true, in.y_pred).dtype(), DType::f64);
}

}  // namespace
}  // namespace kiln::losses::testing
