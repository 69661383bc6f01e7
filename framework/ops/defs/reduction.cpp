// Reductions over axes: sum, max, min, prod, argmax, argmin; mean, logsumexp and variance are
// composites over them.
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;

Shape reduced_shape(const Shape& in, const std::vector<int64_t>& axes, bool keepdims) {
  std::vector<int64_t> out;
  size_t k = 0;
  for (int i = 0; i < in.rank(); ++i) {
    const bool reduced = k < axes.size() && axes[k] == i;
    if (reduced) ++k;
    if (!reduced)
      out.push_back(in[i]);
    else if (keepdims)
      out.push_back(1);
  }
  return Shape(std::move(out));
}

TensorMeta infer_reduce(std::span<const TensorMeta> in, const Attrs& attrs) {
  defs::require_numeric(in[0]);
  return {in[0].dtype, reduced_shape(in[0].shape, attrs.get(attr::axes), attrs.get(attr::keepdims)),
          in[0].device};
}
TensorMeta infer_arg_reduce(std::span<const TensorMeta> in, const Attrs& attrs) {
  defs::require_numeric(in[0]);
  KILN_SHAPE_CHECK(in[0].shape.rank() > 0, "needs an input of rank >= 1");
  const std::vector<int64_t> axes{attrs.get(attr::axis)};
  return {DType::i64, reduced_shape(in[0].shape, axes, attrs.get(attr::keepdims)), in[0].device};
}

// size_of: attrs axes (normalized), dtype.
TensorMeta infer_size_of(std::span<const TensorMeta> in, const Attrs& attrs) {
  return {attrs.get(attr::dtype), Shape{}, in[0].device};
}

// The reduced tensor with its reduced axes put back as size 1, so it broadcasts against x.
Tensor keep_dims(const Tensor& t, const GradContext& c) {
  if (c.attrs().get(attr::keepdims)) return t;
  Tensor out = t;
  for (int64_t axis : c.attrs().get(attr::axes)) out = ops::expand_dims(out, axis);
  return out;
}

Grads grad_sum(const GradContext& c) {
  return {ops::broadcast_like(keep_dims(c.grad, c), c.input(0))};
}
// Ties share the gradient equally, as in TensorFlow.
Grads grad_extremum(const GradContext& c) {
  const Tensor& x = c.input(0);
  const Tensor hit = defs::mask_of(ops::equal(x, keep_dims(c.output, c)), x.dtype());
  const Tensor count = ops::sum(hit, c.attrs().get(attr::axes), true);
  return {hit * (keep_dims(c.grad, c) / count)};
}
// d(prod)/dx_i = prod / x_i; exact for inputs without zeros.
Grads grad_prod(const GradContext& c) {
  return {keep_dims(c.grad, c) * keep_dims(c.output, c) / c.input(0)};
}

Tensor reduce(OpId op, const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  std::vector<int64_t> norm;
  try {
    for (int a : normalize_axes(axes, x.rank())) norm.push_back(a);
  } catch (const ShapeError& e) {
    throw ShapeError(detail::concat("kiln::ops::", op_def(op).name, ": ", e.what(), " (input ",
                                    describe(x.meta()), ")"));
  }
  return apply(op, {x}, {{attr::axes, norm}, {attr::keepdims, keepdims}});
}

Tensor arg_reduce(OpId op, const Tensor& x, int64_t axis, bool keepdims) {
  int norm = 0;
  try {
    norm = normalize_axis(axis, x.rank());
  } catch (const ShapeError& e) {
    throw ShapeError(detail::concat("kiln::ops::", op_def(op).name, ": ", e.what(), " (input ",
                                    describe(x.meta()), ")"));
  }
  return apply(op, {x}, {{attr::axis, int64_t{norm}}, {attr::keepdims, keepdims}});
}

// The number of elements reduced over `axes`; -1 when a dim is unknown.
int64_t reduced_count(const Tensor& x, const std::vector<int64_t>& axes) {
  int64_t n = 1;
  for (int a : normalize_axes(axes, x.rank())) {
    if (x.shape()[a] < 0) return -1;
    n *= x.shape()[a];
  }
  return n;
}

}  // namespace

void define_reduction_ops(OpTable& t) {
  defs::def(t, OpId::reduce_sum, "sum", 1, infer_reduce, grad_sum);
  defs::def(t, OpId::reduce_max, "max", 1, infer_reduce, grad_extremum);
  defs::def(t, OpId::reduce_min, "min", 1, infer_reduce, grad_extremum);
  defs::def(t, OpId::reduce_prod, "prod", 1, infer_reduce, grad_prod);
  defs::def(t, OpId::argmax, "argmax", 1, infer_arg_reduce, nullptr);
  defs::def(t, OpId::argmin, "argmin", 1, infer_arg_reduce, nullptr);
  defs::def(t, OpId::size_of, "size_of", 1, infer_size_of, nullptr);
}

namespace ops {

Tensor sum(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(OpId::reduce_sum, x, axes, keepdims);
}
Tensor max(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(OpId::reduce_max, x, axes, keepdims);
}
Tensor min(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(OpId::reduce_min, x, axes, keepdims);
}
Tensor prod(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(OpId::reduce_prod, x, axes, keepdims);
}
Tensor argmax(const Tensor& x, int64_t axis, bool keepdims) {
  return arg_reduce(OpId::argmax, x, axis, keepdims);
}
Tensor argmin(const Tensor& x, int64_t axis, bool keepdims) {
  return arg_reduce(OpId::argmin, x, axis, keepdims);
}

Tensor mean(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  const Tensor xf = is_floating(x.dtype()) ? x : cast(x, DType::f32);
  const Tensor total = sum(xf, axes, keepdims);
  const int64_t n = reduced_count(x, axes);
  // A count unknown while tracing is read from the shape when the graph runs.
  return n >= 0 ? total * (1.0 / static_cast<double>(n)) : total / size_of(xf, axes, xf.dtype());
}

Tensor logsumexp(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  // Shift by the max so exp never overflows; the shift carries no gradient.
  const Tensor m = stop_gradient(max(x, axes, true));
  const Tensor lse = log(sum(exp(x - m), axes, true)) + m;
  return keepdims ? lse : squeeze(lse, axes.empty() ? std::vector<int64_t>{} : axes);
}

Tensor variance(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  const Tensor centered = x - mean(x, axes, true);
  return mean(square(centered), axes, keepdims);
}

namespace {
// The axes along which x was broadcast from `shape`: leading extra axes and size-1 dims.
std::vector<int64_t> broadcast_axes(const Tensor& x, const Shape& shape) {
  const int lead = x.rank() - shape.rank();
  KILN_CHECK(lead >= 0, "kiln::ops::sum_to: cannot sum ", describe(x.meta()), " to ", shape);
  std::vector<int64_t> axes;
  for (int i = 0; i < x.rank(); ++i)
    if (i < lead || (shape[i - lead] == 1 && x.shape()[i] != 1)) axes.push_back(i);
  return axes;
}
}  // namespace

Tensor sum_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  const std::vector<int64_t> axes = broadcast_axes(x, shape);
  const Tensor s = axes.empty() ? x : sum(x, axes, true);
  return s.shape() == shape ? s : reshape(s, shape);
}

Tensor sum_to_like(const Tensor& x, const Tensor& like) {
  if (x.shape() == like.shape() && x.shape().is_fully_defined()) return x;
  const std::vector<int64_t> axes = broadcast_axes(x, like.shape());
  const Tensor s = axes.empty() ? x : sum(x, axes, true);
  if (s.shape() == like.shape() && s.shape().is_fully_defined()) return s;
  return like.shape().is_fully_defined() ? reshape(s, like.shape()) : reshape_like(s, like);
}

Tensor size_of(const Tensor& x, std::vector<int64_t> axes, DType dtype) {
  std::vector<int64_t> norm;
  for (int a : normalize_axes(axes, x.rank())) norm.push_back(a);
  return apply(OpId::size_of, {x}, {{attr::axes, norm}, {attr::dtype, dtype}});
}

}  // namespace ops
}  // namespace kiln
