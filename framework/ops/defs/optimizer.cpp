// Optimizer updates: one op per update rule, several outputs (the variable and its slots).
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/optimizer_ops.h"

namespace kiln {
namespace {

// variable, m, v, gradient of one floating meta; alpha a one-element tensor of its dtype.
TensorMeta infer_adam_update(std::span<const TensorMeta> in, const Attrs&) {
  const TensorMeta& variable = in[0];
  defs::require_floating(variable, "variable");
  const char* names[] = {"variable", "m", "v", "gradient"};
  for (size_t k = 1; k < 4; ++k)
    KILN_SHAPE_CHECK(in[k] == variable, names[k], " is ", describe(in[k]), ", the variable ",
                     describe(variable));
  KILN_SHAPE_CHECK(
      in[4].dtype == variable.dtype && in[4].device == variable.device && in[4].shape.numel() == 1,
      "alpha must be one ", dtype_name(variable.dtype), " value, got ", describe(in[4]));
  return variable;
}

}  // namespace

void define_optimizer_ops(OpTable& t) {
  defs::def(t, OpId::adam_update, "adam_update", 5, infer_adam_update, nullptr);
  t[OpId::adam_update].num_outputs = 3;
}

namespace ops {

AdamUpdate adam_update(const Tensor& variable, const Tensor& m, const Tensor& v,
                       const Tensor& gradient, const Tensor& alpha, double beta_1, double beta_2,
                       double epsilon) {
  std::vector<Tensor> out =
      apply_multi(OpId::adam_update, {variable, m, v, gradient, alpha},
                  Attrs{{attr::beta_1, beta_1}, {attr::beta_2, beta_2}, {attr::epsilon, epsilon}});
  return {std::move(out[0]), std::move(out[1]), std::move(out[2])};
}

}  // namespace ops
}  // namespace kiln
