// The unary elementwise ops, one per row of unary_op_rows.h: their inference, gradients and
// public functions. Kernels live in the backends, registered from the same rows.
#include <numbers>

#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/unary_op_rows.h"

namespace kiln {
namespace {

using defs::def;
using defs::mask_of;

// Inference by a row's dtypes column.
TensorMeta infer_Floating(std::span<const TensorMeta> in, const Attrs&) {
  defs::require_floating(in[0]);
  return in[0];
}
TensorMeta infer_Numeric(std::span<const TensorMeta> in, const Attrs&) {
  defs::require_numeric(in[0]);
  return in[0];
}

// ---- gradients: g is d(loss)/d(output), x the input, y the output ----
using Grads = std::vector<Tensor>;

Grads grad_neg(const GradContext& c) {
  return {ops::neg(c.grad)};
}
Grads grad_abs(const GradContext& c) {
  return {c.grad * ops::sign(c.input(0))};
}
Grads grad_exp(const GradContext& c) {
  return {c.grad * c.output};
}
Grads grad_log(const GradContext& c) {
  return {c.grad / c.input(0)};
}
Grads grad_log1p(const GradContext& c) {
  return {c.grad / (c.input(0) + 1.0)};
}
Grads grad_sqrt(const GradContext& c) {
  return {c.grad / (c.output * 2.0)};
}
Grads grad_rsqrt(const GradContext& c) {
  return {c.grad * ops::pow(c.output, 3.0) * -0.5};
}
Grads grad_square(const GradContext& c) {
  return {c.grad * c.input(0) * 2.0};
}
Grads grad_tanh(const GradContext& c) {
  return {c.grad * (1.0 - ops::square(c.output))};
}
Grads grad_sigmoid(const GradContext& c) {
  return {c.grad * c.output * (1.0 - c.output)};
}
// From the output (y > 0 exactly where x > 0): the pre-activation then dies at the relu, so a
// bias add before it fuses with it into one pass.
Grads grad_relu(const GradContext& c) {
  return {c.grad * mask_of(ops::greater(c.output, 0.0), c.grad.dtype())};
}
Grads grad_leaky_relu(const GradContext& c) {
  const double alpha = c.attrs().get(attr::alpha);
  return {ops::where(ops::greater(c.input(0), 0.0), c.grad, c.grad * alpha)};
}
Grads grad_elu(const GradContext& c) {
  const double alpha = c.attrs().get(attr::alpha);
  return {ops::where(ops::greater(c.input(0), 0.0), c.grad, c.grad * (c.output + alpha))};
}
Grads grad_gelu(const GradContext& c) {
  const Tensor& x = c.input(0);
  if (c.attrs().get(attr::approximate)) {
    constexpr double k = 0.7978845608028654;  // sqrt(2/pi)
    const Tensor x2 = ops::square(x);
    const Tensor t = ops::tanh((x + x * x2 * 0.044715) * k);
    const Tensor dt = (1.0 - ops::square(t)) * (x2 * (3 * 0.044715) + 1.0) * k;
    return {c.grad * ((t + 1.0) * 0.5 + x * dt * 0.5)};
  }
  const Tensor cdf = (ops::erf(x * std::numbers::sqrt2 / 2) + 1.0) * 0.5;
  const Tensor pdf =
      ops::exp(ops::square(x) * -0.5) * (0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
  return {c.grad * (cdf + x * pdf)};
}
Grads grad_softplus(const GradContext& c) {
  return {c.grad * ops::sigmoid(c.input(0))};
}
Grads grad_sin(const GradContext& c) {
  return {c.grad * ops::cos(c.input(0))};
}
Grads grad_cos(const GradContext& c) {
  return {ops::neg(c.grad * ops::sin(c.input(0)))};
}
Grads grad_erf(const GradContext& c) {
  return {c.grad * ops::exp(ops::neg(ops::square(c.input(0)))) * (2 * std::numbers::inv_sqrtpi)};
}
// 1 where lo < x < hi, else 0, in x's dtype: the slope of a clipped ramp.
Tensor inside(const Tensor& x, double lo, double hi) {
  return mask_of(ops::logical_and(ops::greater(x, lo), ops::less(x, hi)), x.dtype());
}
Grads grad_relu6(const GradContext& c) {
  return {c.grad * inside(c.input(0), 0.0, 6.0)};
}
Grads grad_hard_sigmoid(const GradContext& c) {
  return {c.grad * inside(c.input(0), -3.0, 3.0) * (1.0 / 6)};
}
Grads grad_hard_silu(const GradContext& c) {
  const Tensor& x = c.input(0);
  return {c.grad * (ops::hard_sigmoid(x) + x * inside(x, -3.0, 3.0) * (1.0 / 6))};
}
Grads grad_mish(const GradContext& c) {
  const Tensor& x = c.input(0);
  const Tensor t = ops::tanh(ops::softplus(x));
  return {c.grad * (t + x * (1.0 - ops::square(t)) * ops::sigmoid(x))};
}
Grads grad_softsign(const GradContext& c) {
  return {c.grad / ops::square(ops::abs(c.input(0)) + 1.0)};
}

}  // namespace

void define_unary_ops(OpTable& t) {
#define KILN_DEFINE_UNARY(X, op, F, dtypes, domain, gradient, ...) \
  def(t, OpId::op, #op, 1, infer_##dtypes, gradient);
  KILN_UNARY_OP_ROWS(KILN_DEFINE_UNARY, KILN_DEFINE_UNARY, _)
#undef KILN_DEFINE_UNARY
}

namespace ops {

#define KILN_FRONT_UNARY(X, op, F, dtypes, domain, gradient) \
  Tensor op(const Tensor& x) {                               \
    return apply(OpId::op, {x});                             \
  }
#define KILN_FRONT_UNARY_ATTR(X, op, F, dtypes, domain, gradient, type, key, value) \
  Tensor op(const Tensor& x, type key) {                                            \
    return apply(OpId::op, {x}, {{attr::key, key}});                                \
  }
KILN_UNARY_OP_ROWS(KILN_FRONT_UNARY, KILN_FRONT_UNARY_ATTR, _)
#undef KILN_FRONT_UNARY_ATTR
#undef KILN_FRONT_UNARY

}  // namespace ops
}  // namespace kiln
