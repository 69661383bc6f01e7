// Binary elementwise ops, logical_not, cast, identity and where: inference, gradients and public
// functions (the unary ops are rows of unary_op_rows.h, defined in unary_ops.cpp). Kernels live
// in the backends.
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

using defs::def;
using defs::mask_of;

TensorMeta infer_any_unary(std::span<const TensorMeta> in, const Attrs&) {
  return in[0];
}
TensorMeta infer_to_bool(std::span<const TensorMeta> in, const Attrs&) {
  return {DType::boolean, in[0].shape, in[0].device};
}
TensorMeta infer_cast(std::span<const TensorMeta> in, const Attrs& attrs) {
  return {attrs.get(attr::dtype), in[0].shape, in[0].device};
}

TensorMeta infer_arith(std::span<const TensorMeta> in, const Attrs&) {
  defs::require_same_dtype(in[0], in[1]);
  defs::require_numeric(in[0]);
  return {in[0].dtype, broadcast_shapes(in[0].shape, in[1].shape), in[0].device};
}
TensorMeta infer_compare(std::span<const TensorMeta> in, const Attrs&) {
  defs::require_same_dtype(in[0], in[1]);
  return {DType::boolean, broadcast_shapes(in[0].shape, in[1].shape), in[0].device};
}
TensorMeta infer_logical(std::span<const TensorMeta> in, const Attrs&) {
  KILN_SHAPE_CHECK(in[0].dtype == DType::boolean && in[1].dtype == DType::boolean,
                   "expects bool operands");
  return {DType::boolean, broadcast_shapes(in[0].shape, in[1].shape), in[0].device};
}
TensorMeta infer_where(std::span<const TensorMeta> in, const Attrs&) {
  KILN_SHAPE_CHECK(in[0].dtype == DType::boolean, "condition must be bool, got ",
                   dtype_name(in[0].dtype));
  defs::require_same_dtype(in[1], in[2]);
  return {in[1].dtype, broadcast_shapes(in[0].shape, broadcast_shapes(in[1].shape, in[2].shape)),
          in[1].device};
}

// ---- gradients: g is d(loss)/d(output), x the input, y the output ----
using Grads = std::vector<Tensor>;

Grads grad_identity(const GradContext& c) {
  return {c.grad};
}
Grads grad_cast(const GradContext& c) {
  if (!is_floating(c.input(0).dtype())) return {Tensor()};
  return {ops::cast(c.grad, c.input(0).dtype())};
}

Grads grad_add(const GradContext& c) {
  return {ops::sum_to_like(c.grad, c.input(0)), ops::sum_to_like(c.grad, c.input(1))};
}
Grads grad_sub(const GradContext& c) {
  return {ops::sum_to_like(c.grad, c.input(0)), ops::sum_to_like(ops::neg(c.grad), c.input(1))};
}
Grads grad_mul(const GradContext& c) {
  Grads g(2);
  if (c.needs[0]) g[0] = ops::sum_to_like(c.grad * c.input(1), c.input(0));
  if (c.needs[1]) g[1] = ops::sum_to_like(c.grad * c.input(0), c.input(1));
  return g;
}
Grads grad_div(const GradContext& c) {
  Grads g(2);
  if (c.needs[0]) g[0] = ops::sum_to_like(c.grad / c.input(1), c.input(0));
  if (c.needs[1]) g[1] = ops::sum_to_like(ops::neg(c.grad * c.output / c.input(1)), c.input(1));
  return g;
}
Grads grad_pow(const GradContext& c) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  Grads g(2);
  if (c.needs[0]) g[0] = ops::sum_to_like(c.grad * b * ops::pow(a, b - 1.0), a);
  if (c.needs[1]) {
    // d(a^b)/db = a^b log(a), taken as 0 where a <= 0 (TensorFlow's convention).
    const Tensor positive = ops::greater(a, 0.0);
    const Tensor safe_log = ops::log(ops::where(positive, a, ops::ones_like(a)));
    g[1] = ops::sum_to_like(c.grad * c.output * safe_log, b);
  }
  return g;
}
// Ties send the whole gradient to the first operand.
Grads grad_maximum(const GradContext& c) {
  const Tensor first = ops::greater_equal(c.input(0), c.input(1));
  return {ops::sum_to_like(c.grad * mask_of(first, c.grad.dtype()), c.input(0)),
          ops::sum_to_like(c.grad * mask_of(ops::logical_not(first), c.grad.dtype()), c.input(1))};
}
Grads grad_minimum(const GradContext& c) {
  const Tensor first = ops::less_equal(c.input(0), c.input(1));
  return {ops::sum_to_like(c.grad * mask_of(first, c.grad.dtype()), c.input(0)),
          ops::sum_to_like(c.grad * mask_of(ops::logical_not(first), c.grad.dtype()), c.input(1))};
}
Grads grad_where(const GradContext& c) {
  const Tensor zero = scalar(0, c.grad.dtype(), c.grad.device());
  return {Tensor(), ops::sum_to_like(ops::where(c.input(0), c.grad, zero), c.input(1)),
          ops::sum_to_like(ops::where(c.input(0), zero, c.grad), c.input(2))};
}

Tensor identity_view(const Tensor& x, const TensorMeta&, const Attrs&) {
  return x.detach();
}

}  // namespace

void define_elementwise_ops(OpTable& t) {
  def(t, OpId::logical_not, "logical_not", 1, infer_to_bool, nullptr);
  def(t, OpId::cast, "cast", 1, infer_cast, grad_cast);
  def(t, OpId::identity, "identity", 1, infer_any_unary, grad_identity);
  t[OpId::identity].view = identity_view;

  def(t, OpId::add, "add", 2, infer_arith, grad_add);
  def(t, OpId::sub, "sub", 2, infer_arith, grad_sub);
  def(t, OpId::mul, "mul", 2, infer_arith, grad_mul);
  def(t, OpId::div, "div", 2, infer_arith, grad_div);
  def(t, OpId::pow, "pow", 2, infer_arith, grad_pow);
  def(t, OpId::maximum, "maximum", 2, infer_arith, grad_maximum);
  def(t, OpId::minimum, "minimum", 2, infer_arith, grad_minimum);
  def(t, OpId::equal, "equal", 2, infer_compare, nullptr);
  def(t, OpId::not_equal, "not_equal", 2, infer_compare, nullptr);
  def(t, OpId::less, "less", 2, infer_compare, nullptr);
  def(t, OpId::less_equal, "less_equal", 2, infer_compare, nullptr);
  def(t, OpId::greater, "greater", 2, infer_compare, nullptr);
  def(t, OpId::greater_equal, "greater_equal", 2, infer_compare, nullptr);
  def(t, OpId::logical_and, "logical_and", 2, infer_logical, nullptr);
  def(t, OpId::logical_or, "logical_or", 2, infer_logical, nullptr);
  def(t, OpId::where, "where", 3, infer_where, grad_where);
}

// ---- public functions ----
namespace ops {
namespace {

// Casts both operands to their promoted dtype so kernels see one dtype.
std::pair<Tensor, Tensor> promoted(const Tensor& a, const Tensor& b) {
  const DType d = promote_types(a.dtype(), b.dtype());
  return {a.dtype() == d ? a : cast(a, d), b.dtype() == d ? b : cast(b, d)};
}
Tensor binary(OpId op, const Tensor& a, const Tensor& b) {
  auto [pa, pb] = promoted(a, b);
  return apply(op, {pa, pb});
}
Tensor as_bool(const Tensor& x) {
  return x.dtype() == DType::boolean ? x : cast(x, DType::boolean);
}
Tensor number_like(const Tensor& like, double v) {
  return scalar(v, like.dtype(), like.device());
}

}  // namespace

Tensor logical_not(const Tensor& x) {
  return apply(OpId::logical_not, {as_bool(x)});
}
Tensor cast(const Tensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return apply(OpId::cast, {x}, {{attr::dtype, dtype}});
}
Tensor identity(const Tensor& x) {
  return apply(OpId::identity, {x});
}
Tensor stop_gradient(const Tensor& x) {
  return x.detach();
}

Tensor add(const Tensor& a, const Tensor& b) {
  return binary(OpId::add, a, b);
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return binary(OpId::sub, a, b);
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return binary(OpId::mul, a, b);
}
Tensor div(const Tensor& a, const Tensor& b) {
  return binary(OpId::div, a, b);
}
Tensor pow(const Tensor& a, const Tensor& b) {
  return binary(OpId::pow, a, b);
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary(OpId::maximum, a, b);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary(OpId::minimum, a, b);
}
Tensor equal(const Tensor& a, const Tensor& b) {
  return binary(OpId::equal, a, b);
}
Tensor not_equal(const Tensor& a, const Tensor& b) {
  return binary(OpId::not_equal, a, b);
}
Tensor less(const Tensor& a, const Tensor& b) {
  return binary(OpId::less, a, b);
}
Tensor less_equal(const Tensor& a, const Tensor& b) {
  return binary(OpId::less_equal, a, b);
}
Tensor greater(const Tensor& a, const Tensor& b) {
  return binary(OpId::greater, a, b);
}
Tensor greater_equal(const Tensor& a, const Tensor& b) {
  return binary(OpId::greater_equal, a, b);
}
Tensor logical_and(const Tensor& a, const Tensor& b) {
  return apply(OpId::logical_and, {as_bool(a), as_bool(b)});
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return apply(OpId::logical_or, {as_bool(a), as_bool(b)});
}
Tensor add(const Tensor& a, double b) {
  return apply(OpId::add, {a, number_like(a, b)});
}
Tensor sub(const Tensor& a, double b) {
  return apply(OpId::sub, {a, number_like(a, b)});
}
Tensor mul(const Tensor& a, double b) {
  return apply(OpId::mul, {a, number_like(a, b)});
}
Tensor div(const Tensor& a, double b) {
  return apply(OpId::div, {a, number_like(a, b)});
}
Tensor pow(const Tensor& a, double b) {
  return apply(OpId::pow, {a, number_like(a, b)});
}
Tensor maximum(const Tensor& a, double b) {
  return apply(OpId::maximum, {a, number_like(a, b)});
}
Tensor minimum(const Tensor& a, double b) {
  return apply(OpId::minimum, {a, number_like(a, b)});
}
Tensor greater(const Tensor& a, double b) {
  return apply(OpId::greater, {a, number_like(a, b)});
}
Tensor less(const Tensor& a, double b) {
  return apply(OpId::less, {a, number_like(a, b)});
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  auto [pa, pb] = promoted(a, b);
  return apply(OpId::where, {as_bool(cond), pa, pb});
}
Tensor clip(const Tensor& x, double min_value, double max_value) {
  KILN_CHECK(min_value <= max_value, "kiln::ops::clip: min_value ", min_value,
             " exceeds max_value ", max_value);
  return minimum(maximum(x, min_value), max_value);
}

}  // namespace ops

Tensor operator-(const Tensor& x) {
  return ops::neg(x);
}
Tensor operator+(const Tensor& a, const Tensor& b) {
  return ops::add(a, b);
}
Tensor operator-(const Tensor& a, const Tensor& b) {
  return ops::sub(a, b);
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  return ops::mul(a, b);
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  return ops::div(a, b);
}
Tensor operator+(const Tensor& a, double b) {
  return ops::add(a, b);
}
Tensor operator-(const Tensor& a, double b) {
  return ops::sub(a, b);
}
Tensor operator*(const Tensor& a, double b) {
  return ops::mul(a, b);
}
Tensor operator/(const Tensor& a, double b) {
  return ops::div(a, b);
}
Tensor operator+(double a, const Tensor& b) {
  return ops::add(b, a);
}
Tensor operator-(double a, const Tensor& b) {
  return ops::sub(scalar(a, b.dtype(), b.device()), b);
}
Tensor operator*(double a, const Tensor& b) {
  return ops::mul(b, a);
}
Tensor operator/(double a, const Tensor& b) {
  return ops::div(scalar(a, b.dtype(), b.device()), b);
}

}  // namespace kiln
