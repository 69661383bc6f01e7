// Every golden case traced with an unknown batch dim: one trace serves two batch sizes, and the
// loss and its gradient equal the eager ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "tests/losses/golden_cases.h"

namespace kiln::losses::testing {
namespace {

// The batch twice over (scalars stay): a second batch size for the same signature.
std::vector<Tensor> doubled(const std::vector<Tensor>& args) {
  std::vector<Tensor> out;
  for (const Tensor& t : args) out.push_back(t.rank() == 0 ? t : ops::concat({t, t}, 0));
  return out;
}

class LossTracing : public ::testing::TestWithParam<LossGolden> {};

TEST_P(LossTracing, TracedEqualsEagerWithUnknownBatch) {
  const LossGolden& g = GetParam();
  const LossPtr loss = golden_loss(g);
  const GoldenInputs in = golden_inputs(g, DType::f32);
  std::vector<Tensor> args;
  for (const Tensor& t : {in.y_true, in.y_pred, in.sample_weight, in.mask})
    if (t.defined()) args.push_back(t);
  const bool has_weight = in.sample_weight.defined();
  const bool has_mask = in.mask.defined();

  // The loss and d sum(loss) / d y_pred.
  const auto loss_and_grad = [&](const std::vector<Tensor>& a) {
    const Tensor sample_weight = has_weight ? a[2] : Tensor();
    const Tensor mask = has_mask ? a.back() : Tensor();
    Tensor value;
    const auto grads = grad(
        [&](const std::vector<Tensor>& p) {
          value = (*loss)(a[0], p[0], sample_weight, mask);
          return ops::sum(value);
        },
        {a[1]});
    return std::vector<Tensor>{value, grads[0]};
  };
  // Every argument's batch dim (its first) unknown.
  std::vector<TensorSpec> signature;
  for (const Tensor& t : args) {
    std::vector<int64_t> dims = t.shape().dims();
    if (!dims.empty()) dims[0] = Shape::kUnknownDim;
    signature.emplace_back(Shape(dims), t.dtype());
  }
  auto traced = kiln::function(loss_and_grad, {.name = g.label, .input_signature = signature});

  for (const auto& batch : {args, doubled(args)}) {
    SCOPED_TRACE(detail::concat("batch ", batch[1].shape()));
    const std::vector<Tensor> want = loss_and_grad(batch);
    const std::vector<Tensor> got = traced(batch);
    EXPECT_EQ(got[0].shape(), want[0].shape());
    expect_close(got[0], ops::cast(want[0], DType::f64).to_vector<double>(), 1e-6, "loss");
    expect_close(got[1], ops::cast(want[1], DType::f64).to_vector<double>(), 1e-6, "gradient");
  }
  EXPECT_EQ(traced.stats().traces, 1);
}

INSTANTIATE_TEST_SUITE_P(Keras, LossTracing, ::testing::ValuesIn(loss_goldens()), golden_test_name);

}  // namespace
}  // namespace kiln::losses::testing
