// Indexing: gather (numpy.take), scatter_add (its adjoint), take_along_axis and one_hot.
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;

// params[:axis] + indices + params[axis+1:]
Shape gathered_shape(const Shape& params, const Shape& indices, int axis) {
  std::vector<int64_t> dims(params.begin(), params.begin() + axis);
  dims.insert(dims.end(), indices.begin(), indices.end());
  dims.insert(dims.end(), params.begin() + axis + 1, params.end());
  return Shape(std::move(dims));
}

TensorMeta infer_gather(std::span<const TensorMeta> in, const Attrs& attrs) {
  defs::require_integral_indices(in[1]);
  const int axis = static_cast<int>(attrs.get(attr::axis));
  KILN_SHAPE_CHECK(axis >= 0 && axis < in[0].shape.rank(), "axis ", axis,
                   " is out of range for params of rank ", in[0].shape.rank());
  return {in[0].dtype, gathered_shape(in[0].shape, in[1].shape, axis), in[0].device};
}
Grads grad_gather(const GradContext& c) {
  const Tensor& params = c.input(0);
  const Tensor base = ops::zeros_like(params);
  return {ops::scatter_add(base, c.input(1), c.grad, c.attrs().get(attr::axis)), Tensor()};
}

TensorMeta infer_scatter_add(std::span<const TensorMeta> in, const Attrs& attrs) {
  defs::require_integral_indices(in[1]);
  defs::require_same_dtype(in[0], in[2]);
  const int axis = static_cast<int>(attrs.get(attr::axis));
  KILN_SHAPE_CHECK(axis >= 0 && axis < in[0].shape.rank(), "axis ", axis,
                   " is out of range for base of rank ", in[0].shape.rank());
  const Shape expected = gathered_shape(in[0].shape, in[1].shape, axis);
  KILN_SHAPE_CHECK(expected.rank() == in[2].shape.rank(), "updates must have shape ", expected);
  for (int i = 0; i < expected.rank(); ++i)
    KILN_SHAPE_CHECK(expected[i] < 0 || in[2].shape[i] < 0 || expected[i] == in[2].shape[i],
                     "updates must have shape ", expected);
  return in[0];
}
Grads grad_scatter_add(const GradContext& c) {
  Grads g(3);
  g[0] = c.grad;
  if (c.needs[2]) g[2] = ops::gather(c.grad, c.input(1), c.attrs().get(attr::axis));
  return g;
}

int checked_axis(int64_t axis, const Tensor& x, const char* op) {
  try {
    return normalize_axis(axis, x.rank());
  } catch (const ShapeError& e) {
    throw ShapeError(
        detail::concat("kiln::ops::", op, ": ", e.what(), " (", describe(x.meta()), ")"));
  }
}

// range_like: int64 [like.shape[axis]] holding 0, 1, ...; the length is read when the op runs.
TensorMeta infer_range_like(std::span<const TensorMeta> in, const Attrs& attrs) {
  const int64_t axis = attrs.get(attr::axis);
  KILN_SHAPE_CHECK(axis >= 0 && axis < in[0].shape.rank(), "axis ", axis, " is out of range for ",
                   describe(in[0]));
  return {DType::i64, Shape{in[0].shape[static_cast<int>(axis)]}, in[0].device};
}

}  // namespace

void define_index_ops(OpTable& t) {
  defs::def(t, OpId::gather, "gather", 2, infer_gather, grad_gather);
  defs::def(t, OpId::scatter_add, "scatter_add", 3, infer_scatter_add, grad_scatter_add);
  defs::def(t, OpId::range_like, "range_like", 1, infer_range_like, nullptr);
}

namespace ops {

Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis) {
  const int a = checked_axis(axis, params, "gather");
  return apply(OpId::gather, {params, indices}, {{attr::axis, int64_t{a}}});
}

Tensor scatter_add(const Tensor& base, const Tensor& indices, const Tensor& updates, int64_t axis) {
  const int a = checked_axis(axis, base, "scatter_add");
  return apply(OpId::scatter_add, {base, indices, updates}, {{attr::axis, int64_t{a}}});
}

namespace {
// While tracing with unknown dims the flat offsets cannot be precomputed: select with a one-hot
// of the indices over the (known) axis instead, which costs O(axis size) per picked element.
Tensor take_along_axis_by_one_hot(const Tensor& x, const Tensor& indices, int a) {
  const int64_t depth = x.shape()[a];
  KILN_CHECK(depth >= 0, "kiln::ops::take_along_axis: the size of axis ", a, " of x ",
             describe(x.meta()), " must be known while tracing");
  // Move `a` last: [B..., n] and [B..., k]; pick with [B..., k, n] one-hots; move back.
  std::vector<int64_t> perm;
  for (int i = 0; i < x.rank(); ++i)
    if (i != a) perm.push_back(i);
  perm.push_back(a);
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  const Tensor xt = expand_dims(transpose(x, perm), -2);
  const Tensor picks = one_hot(transpose(indices, perm), depth, x.dtype());
  return transpose(sum(xt * picks, {-1}), inverse);
}
}  // namespace

Tensor take_along_axis(const Tensor& x, const Tensor& indices, int64_t axis) {
  const int a = checked_axis(axis, x, "take_along_axis");
  KILN_CHECK(indices.rank() == x.rank(), "kiln::ops::take_along_axis: indices ",
             describe(indices.meta()), " must have the rank of x ", describe(x.meta()));
  for (int i = 0; i < x.rank(); ++i)
    KILN_CHECK(i == a || indices.shape()[i] == x.shape()[i],
               "kiln::ops::take_along_axis: ", "indices ", describe(indices.meta()),
               " must match x ", describe(x.meta()), " except along axis ", a);
  if (!x.shape().is_fully_defined() || !indices.shape().is_fully_defined())
    return take_along_axis_by_one_hot(x, indices, a);
  // Flat index = offset of the element with coordinate 0 along `axis` + index * axis stride.
  const auto x_strides = x.shape().strides();
  const Shape& is = indices.shape();
  std::vector<int64_t> base(static_cast<size_t>(is.numel()));
  const auto i_strides = is.strides();
  for (int64_t flat = 0; flat < is.numel(); ++flat) {
    int64_t rem = flat;
    int64_t off = 0;
    for (int d = 0; d < is.rank(); ++d) {
      const int64_t coord = rem / i_strides[static_cast<size_t>(d)];
      rem %= i_strides[static_cast<size_t>(d)];
      if (d != a) off += coord * x_strides[static_cast<size_t>(d)];
    }
    base[static_cast<size_t>(flat)] = off;
  }
  const Tensor offsets = from_vector(base, is, DType::i64, x.device());
  const Tensor flat_index =
      offsets + cast(indices, DType::i64) * static_cast<double>(x_strides[static_cast<size_t>(a)]);
  return gather(reshape(x, {x.numel()}), flat_index, 0);
}

Tensor range_like(const Tensor& like, int64_t axis) {
  const int a = checked_axis(axis, like, "range_like");
  return apply(OpId::range_like, {stop_gradient(like)}, {{attr::axis, int64_t{a}}});
}

Tensor one_hot(const Tensor& indices, int64_t depth, DType dtype) {
  KILN_CHECK(is_integral(indices.dtype()) && indices.dtype() != DType::boolean,
             "kiln::ops::one_hot: indices must be integers, got ", describe(indices.meta()));
  KILN_CHECK(depth > 0, "kiln::ops::one_hot: depth must be positive, got ", depth);
  // Out-of-range indices give an all-zero row, as in TensorFlow.
  const Tensor classes =
      arange(0, static_cast<double>(depth), 1, indices.dtype(), indices.device());
  return cast(equal(expand_dims(indices, -1), classes), dtype);
}

}  // namespace ops
}  // namespace kiln
