// Ops that move data without arithmetic: reshape, transpose, broadcast_to, strided slices,
// concat and pad, plus the composites over them.
#include <algorithm>
#include <limits>

#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/slice_bounds.h"

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;

// ---- reshape ----
Shape resolve_reshape(const Shape& from, const Shape& to) {
  int unknown = -1;
  int64_t known = 1;
  std::vector<int64_t> dims = to.dims();
  for (int i = 0; i < to.rank(); ++i) {
    if (to[i] < 0) {
      KILN_SHAPE_CHECK(unknown < 0, "target shape ", to, " has more than one -1");
      unknown = i;
    } else {
      known *= to[i];
    }
  }
  const int64_t n = from.numel();
  if (unknown >= 0 && n >= 0) {
    KILN_SHAPE_CHECK(known > 0 && n % known == 0, "cannot reshape ", from, " into ", to);
    dims[static_cast<size_t>(unknown)] = n / known;
  } else if (unknown < 0 && n >= 0) {
    KILN_SHAPE_CHECK(n == known, "cannot reshape ", from, " (", n, " elements) into ", to, " (",
                     known, " elements)");
  }
  return Shape(std::move(dims));
}
TensorMeta infer_reshape(std::span<const TensorMeta> in, const Attrs& attrs) {
  return {in[0].dtype, resolve_reshape(in[0].shape, Shape(attrs.get(attr::shape))), in[0].device};
}
// Gradients of every reshaping view: back to the input's shape as it is when the op runs.
Grads grad_reshape(const GradContext& c) {
  return {ops::reshape_like(c.grad, c.input(0))};
}
Tensor view_as_output(const Tensor& x, const TensorMeta& out, const Attrs&) {
  return x.view(out.shape);
}

// ---- expand_dims / squeeze: attrs axis (in [0, rank]) / axes (sorted, each of size 1) ----
TensorMeta infer_expand_dims(std::span<const TensorMeta> in, const Attrs& attrs) {
  std::vector<int64_t> dims = in[0].shape.dims();
  const int64_t axis = attrs.get(attr::axis);
  KILN_SHAPE_CHECK(axis >= 0 && axis <= static_cast<int64_t>(dims.size()), "axis ", axis,
                   " is out of range for rank ", dims.size());
  dims.insert(dims.begin() + axis, 1);
  return {in[0].dtype, Shape(std::move(dims)), in[0].device};
}
TensorMeta infer_squeeze(std::span<const TensorMeta> in, const Attrs& attrs) {
  const auto& axes = attrs.get(attr::axes);
  std::vector<int64_t> dims;
  for (int i = 0; i < in[0].shape.rank(); ++i) {
    const bool drop = std::find(axes.begin(), axes.end(), i) != axes.end();
    KILN_SHAPE_CHECK(!drop || in[0].shape[i] == 1 || in[0].shape[i] < 0, "axis ", i,
                     " is not of size 1");
    if (!drop) dims.push_back(in[0].shape[i]);
  }
  return {in[0].dtype, Shape(std::move(dims)), in[0].device};
}

// ---- reshape_like / broadcast_like: the second input only lends its runtime shape ----
// attr leading (optional): only like's first `leading` dims, which replace x's first dim.
TensorMeta infer_reshape_like(std::span<const TensorMeta> in, const Attrs& attrs) {
  Shape target = in[1].shape;
  if (attrs.has(attr::leading)) {
    const auto leading = static_cast<size_t>(attrs.get(attr::leading));
    KILN_SHAPE_CHECK(in[0].shape.rank() >= 1 && in[1].shape.rank() >= static_cast<int>(leading),
                     "cannot split the first dim of ", in[0].shape, " into the first ", leading,
                     " dims of ", in[1].shape);
    std::vector<int64_t> dims(in[1].shape.dims().begin(), in[1].shape.dims().begin() + leading);
    dims.insert(dims.end(), in[0].shape.dims().begin() + 1, in[0].shape.dims().end());
    target = Shape(std::move(dims));
  }
  const int64_t from = in[0].shape.numel(), to = target.numel();
  KILN_SHAPE_CHECK(from < 0 || to < 0 || from == to, "cannot reshape ", in[0].shape, " into ",
                   target);
  return {in[0].dtype, target, in[0].device};
}
Grads grad_like_reshape(const GradContext& c) {
  return {ops::reshape_like(c.grad, c.input(0)), Tensor()};
}
TensorMeta infer_broadcast_like(std::span<const TensorMeta> in, const Attrs&) {
  const Shape& target = in[1].shape;
  const Shape b = broadcast_shapes(in[0].shape, target);
  KILN_SHAPE_CHECK(b.rank() == target.rank(), "cannot broadcast ", in[0].shape, " to ", target);
  return {in[0].dtype, target, in[0].device};
}
Grads grad_broadcast_like(const GradContext& c) {
  return {ops::sum_to_like(c.grad, c.input(0)), Tensor()};
}

// ---- transpose ----
TensorMeta infer_transpose(std::span<const TensorMeta> in, const Attrs& attrs) {
  const auto& perm = attrs.get(attr::perm);
  const Shape& s = in[0].shape;
  KILN_SHAPE_CHECK(static_cast<int>(perm.size()) == s.rank(), "perm has ", perm.size(),
                   " axes for a rank-", s.rank(), " input");
  std::vector<bool> seen(perm.size(), false);
  std::vector<int64_t> dims;
  for (int64_t p : perm) {
    KILN_SHAPE_CHECK(p >= 0 && p < s.rank() && !seen[static_cast<size_t>(p)],
                     "perm is not a permutation of the axes");
    seen[static_cast<size_t>(p)] = true;
    dims.push_back(s[static_cast<int>(p)]);
  }
  return {in[0].dtype, Shape(std::move(dims)), in[0].device};
}
Grads grad_transpose(const GradContext& c) {
  const auto& perm = c.attrs().get(attr::perm);
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return {ops::transpose(c.grad, inverse)};
}

// ---- broadcast_to ----
TensorMeta infer_broadcast_to(std::span<const TensorMeta> in, const Attrs& attrs) {
  const Shape target(attrs.get(attr::shape));
  const Shape b = broadcast_shapes(in[0].shape, target);
  KILN_SHAPE_CHECK(b.rank() == target.rank(), "cannot broadcast ", in[0].shape, " to ", target);
  for (int i = 0; i < b.rank(); ++i)
    KILN_SHAPE_CHECK(target[i] < 0 || b[i] == target[i], "cannot broadcast ", in[0].shape, " to ",
                     target);
  return {in[0].dtype, target, in[0].device};
}
Grads grad_broadcast_to(const GradContext& c) {
  return {ops::sum_to_like(c.grad, c.input(0))};
}

// ---- strided_slice: attrs begin/end/strides per axis, resolved against the dims at run time
// (slice_bounds.h); an unknown axis sliced anywhere but whole stays unknown ----
TensorMeta infer_strided_slice(std::span<const TensorMeta> in, const Attrs& attrs) {
  const auto& b = attrs.get(attr::begin);
  const auto& e = attrs.get(attr::end);
  const auto& st = attrs.get(attr::strides);
  const Shape& s = in[0].shape;
  std::vector<int64_t> dims;
  for (int i = 0; i < s.rank(); ++i) {
    const auto k = static_cast<size_t>(i);
    dims.push_back(s[i] < 0 ? -1 : resolve_slice(s[i], b[k], e[k], st[k]).length);
  }
  return {in[0].dtype, Shape(std::move(dims)), in[0].device};
}
// A slice is a view when it selects one contiguous block: single indices on leading axes, a
// unit-stride range on one axis, whole axes after it.
Tensor strided_slice_view(const Tensor& x, const TensorMeta& out, const Attrs& attrs) {
  const auto& b = attrs.get(attr::begin);
  const auto& st = attrs.get(attr::strides);
  const Shape& s = x.shape();
  int first_partial = s.rank();
  for (int i = 0; i < s.rank(); ++i) {
    if (out.shape[i] != s[i]) {
      first_partial = i;
      break;
    }
  }
  bool contiguous = true;
  for (int i = 0; i < s.rank(); ++i) {
    if (st[static_cast<size_t>(i)] != 1 && out.shape[i] > 1) contiguous = false;
    if (i < first_partial && s[i] != 1) contiguous = false;
    if (i > first_partial && out.shape[i] != s[i]) contiguous = false;
  }
  if (!contiguous) return Tensor();
  const auto strides = s.strides();
  const auto& e = attrs.get(attr::end);
  int64_t offset = 0;
  for (int i = 0; i < s.rank(); ++i) {
    const auto k = static_cast<size_t>(i);
    offset += resolve_slice(s[i], b[k], e[k], st[k]).begin * strides[k];
  }
  return x.view(out.shape, offset);
}
Grads grad_strided_slice(const GradContext& c) {
  Attrs attrs = c.attrs();
  attrs.set("input_shape", c.input(0).shape().dims());
  return {apply(OpId::strided_slice_grad, defs::with_shape_source({c.grad}, c.input(0)), attrs)};
}
// inputs: grad_out[, shape source]; attr input_shape
TensorMeta infer_strided_slice_grad(std::span<const TensorMeta> in, const Attrs& attrs) {
  return {in[0].dtype, defs::forward_shape(in, 1, attrs, "input_shape"), in[0].device};
}
Grads grad_strided_slice_grad(const GradContext& c) {
  Attrs attrs = c.attrs();
  return {apply(OpId::strided_slice, {c.grad},
                {{attr::begin, attrs.get(attr::begin)},
                 {attr::end, attrs.get(attr::end)},
                 {attr::strides, attrs.get(attr::strides)}})};
}

// ---- concat ----
TensorMeta infer_concat(std::span<const TensorMeta> in, const Attrs& attrs) {
  KILN_SHAPE_CHECK(!in.empty(), "needs at least one input");
  const int axis = static_cast<int>(attrs.get(attr::axis));
  std::vector<int64_t> dims = in[0].shape.dims();
  KILN_SHAPE_CHECK(axis >= 0 && axis < in[0].shape.rank(), "axis ", axis, " out of range");
  for (size_t k = 1; k < in.size(); ++k) {
    defs::require_same_dtype(in[0], in[k]);
    KILN_SHAPE_CHECK(in[k].shape.rank() == in[0].shape.rank(), "input ", k, " has rank ",
                     in[k].shape.rank(), ", input 0 has rank ", in[0].shape.rank());
    for (int i = 0; i < in[0].shape.rank(); ++i) {
      const int64_t d = in[k].shape[i];
      if (i == axis) {
        dims[static_cast<size_t>(i)] = (dims[static_cast<size_t>(i)] < 0 || d < 0)
                                           ? Shape::kUnknownDim
                                           : dims[static_cast<size_t>(i)] + d;
      } else {
        KILN_SHAPE_CHECK(d < 0 || in[0].shape[i] < 0 || d == in[0].shape[i], "input ", k,
                         " differs from input 0 in dim ", i, " (", d, " vs ", in[0].shape[i], ")");
      }
    }
  }
  return {in[0].dtype, Shape(std::move(dims)), in[0].device};
}
Grads grad_concat(const GradContext& c) {
  const int64_t axis = c.attrs().get(attr::axis);
  Grads g;
  int64_t start = 0;
  for (const Tensor& x : c.node.inputs) {
    const int64_t size = x.shape()[static_cast<int>(axis)];
    std::vector<int64_t> begin(static_cast<size_t>(x.rank()), 0);
    std::vector<int64_t> sizes(static_cast<size_t>(x.rank()), -1);
    begin[static_cast<size_t>(axis)] = start;
    sizes[static_cast<size_t>(axis)] = size;
    g.push_back(ops::slice(c.grad, begin, sizes));
    start += size;
  }
  return g;
}

// ---- pad: attrs paddings = [before0, after0, before1, after1, ...] ----
TensorMeta infer_pad(std::span<const TensorMeta> in, const Attrs& attrs) {
  const auto& p = attrs.get(attr::paddings);
  const Shape& s = in[0].shape;
  KILN_SHAPE_CHECK(static_cast<int>(p.size()) == 2 * s.rank(), "paddings has ", p.size() / 2,
                   " axes for a rank-", s.rank(), " input");
  std::vector<int64_t> dims;
  for (int i = 0; i < s.rank(); ++i) {
    const int64_t before = p[static_cast<size_t>(2 * i)];
    const int64_t after = p[static_cast<size_t>(2 * i + 1)];
    KILN_SHAPE_CHECK(before >= 0 && after >= 0, "paddings must be non-negative");
    dims.push_back(s[i] < 0 ? Shape::kUnknownDim : s[i] + before + after);
  }
  return {in[0].dtype, Shape(std::move(dims)), in[0].device};
}
Grads grad_pad(const GradContext& c) {
  const auto& p = c.attrs().get(attr::paddings);
  const Shape& s = c.input(0).shape();
  std::vector<int64_t> begin;
  for (int i = 0; i < s.rank(); ++i) begin.push_back(p[static_cast<size_t>(2 * i)]);
  return {ops::slice(c.grad, begin, s.dims())};
}

}  // namespace

void define_shape_ops(OpTable& t) {
  defs::def(t, OpId::reshape, "reshape", 1, infer_reshape, grad_reshape);
  t[OpId::reshape].view = view_as_output;
  defs::def(t, OpId::expand_dims, "expand_dims", 1, infer_expand_dims, grad_reshape);
  t[OpId::expand_dims].view = view_as_output;
  defs::def(t, OpId::squeeze, "squeeze", 1, infer_squeeze, grad_reshape);
  t[OpId::squeeze].view = view_as_output;
  defs::def(t, OpId::reshape_like, "reshape_like", 2, infer_reshape_like, grad_like_reshape);
  t[OpId::reshape_like].view = view_as_output;
  defs::def(t, OpId::broadcast_like, "broadcast_like", 2, infer_broadcast_like,
            grad_broadcast_like);
  defs::def(t, OpId::transpose, "transpose", 1, infer_transpose, grad_transpose);
  defs::def(t, OpId::broadcast_to, "broadcast_to", 1, infer_broadcast_to, grad_broadcast_to);
  defs::def(t, OpId::strided_slice, "strided_slice", 1, infer_strided_slice, grad_strided_slice);
  t[OpId::strided_slice].view = strided_slice_view;
  defs::def(t, OpId::strided_slice_grad, "strided_slice_grad", -1, infer_strided_slice_grad,
            grad_strided_slice_grad);
  defs::def(t, OpId::concat, "concat", -1, infer_concat, grad_concat);
  defs::def(t, OpId::pad, "pad", 1, infer_pad, grad_pad);
}

namespace ops {

Tensor reshape(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  return apply(OpId::reshape, {x}, {{attr::shape, shape.dims()}});
}

Tensor flatten(const Tensor& x) {
  KILN_CHECK(x.rank() >= 1, "kiln::ops::flatten: needs rank >= 1, got ", describe(x.meta()));
  return reshape(x, {x.shape()[0], -1});
}

Tensor transpose(const Tensor& x, std::vector<int64_t> perm) {
  if (perm.empty())
    for (int i = x.rank() - 1; i >= 0; --i) perm.push_back(i);
  for (int64_t& p : perm)
    if (p < 0) p += x.rank();
  bool trivial = true;
  for (size_t i = 0; i < perm.size(); ++i) trivial = trivial && perm[i] == static_cast<int64_t>(i);
  if (trivial && static_cast<int>(perm.size()) == x.rank()) return x;
  return apply(OpId::transpose, {x}, {{attr::perm, perm}});
}

Tensor expand_dims(const Tensor& x, int64_t axis) {
  const int rank = x.rank();
  KILN_CHECK(axis >= -(rank + 1) && axis <= rank, "kiln::ops::expand_dims: axis ", axis,
             " is out of range for ", describe(x.meta()));
  if (axis < 0) axis += rank + 1;
  return apply(OpId::expand_dims, {x}, {{attr::axis, axis}});
}

Tensor squeeze(const Tensor& x, std::vector<int64_t> axes) {
  std::vector<bool> drop(static_cast<size_t>(x.rank()), false);
  if (axes.empty()) {
    for (int i = 0; i < x.rank(); ++i) drop[static_cast<size_t>(i)] = x.shape()[i] == 1;
  } else {
    for (int64_t a : axes) {
      int i = 0;
      try {
        i = normalize_axis(a, x.rank());
      } catch (const ShapeError& e) {
        throw ShapeError(detail::concat("kiln::ops::squeeze: ", e.what()));
      }
      KILN_CHECK(x.shape()[i] == 1, "kiln::ops::squeeze: axis ", a, " of ", describe(x.meta()),
                 " is not of size 1");
      drop[static_cast<size_t>(i)] = true;
    }
  }
  std::vector<int64_t> dropped;
  for (int i = 0; i < x.rank(); ++i)
    if (drop[static_cast<size_t>(i)]) dropped.push_back(i);
  if (dropped.empty()) return x;
  return apply(OpId::squeeze, {x}, {{attr::axes, dropped}});
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  return apply(OpId::broadcast_to, {x}, {{attr::shape, shape.dims()}});
}

Tensor broadcast_like(const Tensor& x, const Tensor& like) {
  if (x.shape() == like.shape() && x.shape().is_fully_defined()) return x;
  return apply(OpId::broadcast_like, {x, like});
}

Tensor reshape_like(const Tensor& x, const Tensor& like) {
  if (x.shape() == like.shape() && x.shape().is_fully_defined()) return x;
  return apply(OpId::reshape_like, {x, like});
}

Tensor unflatten_like(const Tensor& x, const Tensor& like, int64_t leading) {
  return apply(OpId::reshape_like, {x, like}, {{attr::leading, leading}});
}

Tensor zeros_like(const Tensor& x) {
  if (!x.is_symbolic()) return zeros(x.shape(), x.dtype(), x.device());
  return broadcast_like(scalar(0, x.dtype(), x.device()), x);
}

Tensor ones_like(const Tensor& x) {
  if (!x.is_symbolic()) return ones(x.shape(), x.dtype(), x.device());
  return broadcast_like(scalar(1, x.dtype(), x.device()), x);
}

Tensor strided_slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> end,
                     std::vector<int64_t> strides) {
  const int rank = x.rank();
  KILN_CHECK(static_cast<int>(begin.size()) <= rank && end.size() == begin.size() &&
                 strides.size() == begin.size(),
             "kiln::ops::strided_slice: begin/end/strides must have one entry per leading axis "
             "(got ",
             begin.size(), "/", end.size(), "/", strides.size(), ") for ", describe(x.meta()));
  std::vector<int64_t> b(static_cast<size_t>(rank), 0), e(static_cast<size_t>(rank), kSliceEnd),
      s(static_cast<size_t>(rank), 1);
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t dim = x.shape()[static_cast<int>(i)];
    const int64_t stride = strides[i];
    KILN_CHECK(stride != 0, "kiln::ops::strided_slice: stride of axis ", i, " is zero");
    s[i] = stride;
    if (dim < 0) {  // resolved when the op runs
      b[i] = begin[i];
      e[i] = end[i];
      continue;
    }
    // Python slice clamping; a negative stride's end before index 0 is stored as omitted, so
    // resolving the stored bounds again selects the same elements.
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0 && v != kSliceEnd) v += dim;
      return std::clamp(v, lo, hi);
    };
    const ResolvedSlice r = resolve_slice(dim, begin[i], end[i], stride);
    if (r.length == 0) {
      b[i] = e[i] = 0;
    } else if (stride > 0) {
      b[i] = r.begin;
      e[i] = end[i] == kSliceEnd ? dim : clamp(end[i], 0, dim);
    } else {
      b[i] = r.begin;
      e[i] = end[i] == kSliceEnd ? -1 : clamp(end[i], -1, dim - 1);
      if (e[i] < 0) e[i] = kSliceEnd;
    }
    if (b[i] == 0 && e[i] == dim && s[i] == 1) e[i] = kSliceEnd;
  }
  return apply(OpId::strided_slice, {x}, {{attr::begin, b}, {attr::end, e}, {attr::strides, s}});
}

Tensor slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> size) {
  KILN_CHECK(begin.size() == size.size(), "kiln::ops::slice: begin has ", begin.size(),
             " entries, size has ", size.size());
  std::vector<int64_t> end(begin.size());
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t dim = x.shape()[static_cast<int>(i)];
    KILN_CHECK(begin[i] >= 0 &&
                   (size[i] == -1 || (size[i] >= 0 && (dim < 0 || begin[i] + size[i] <= dim))),
               "kiln::ops::slice: begin ", begin[i], " size ", size[i], " out of range for axis ",
               i, " of ", describe(x.meta()));
    end[i] = size[i] == -1 ? kSliceEnd : begin[i] + size[i];
  }
  return strided_slice(x, begin, end, std::vector<int64_t>(begin.size(), 1));
}

Tensor concat(const std::vector<Tensor>& xs, int64_t axis) {
  KILN_CHECK(!xs.empty(), "kiln::ops::concat: no inputs");
  if (xs.size() == 1) return xs[0];
  const int a = normalize_axis(axis, xs[0].rank());
  DType dtype = xs[0].dtype();
  for (const Tensor& x : xs) dtype = promote_types(dtype, x.dtype());
  std::vector<Tensor> inputs;
  for (const Tensor& x : xs) inputs.push_back(cast(x, dtype));
  return apply(OpId::concat, std::move(inputs), {{attr::axis, int64_t{a}}});
}

Tensor stack(const std::vector<Tensor>& xs, int64_t axis) {
  KILN_CHECK(!xs.empty(), "kiln::ops::stack: no inputs");
  std::vector<Tensor> expanded;
  for (const Tensor& x : xs) expanded.push_back(expand_dims(x, axis));
  return concat(expanded, axis);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis) {
  const int a = normalize_axis(axis, x.rank());
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  KILN_CHECK(total == x.shape()[a], "kiln::ops::split: sizes sum to ", total, " but axis ", a,
             " of ", describe(x.meta()), " has ", x.shape()[a]);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    std::vector<int64_t> begin(static_cast<size_t>(x.rank()), 0);
    std::vector<int64_t> size(static_cast<size_t>(x.rank()), -1);
    begin[static_cast<size_t>(a)] = start;
    size[static_cast<size_t>(a)] = s;
    out.push_back(slice(x, begin, size));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& x, int64_t num, int64_t axis) {
  const int a = normalize_axis(axis, x.rank());
  KILN_CHECK(num > 0 && x.shape()[a] % num == 0, "kiln::ops::split: axis ", a, " of ",
             describe(x.meta()), " does not divide into ", num, " equal parts");
  return split(x, std::vector<int64_t>(static_cast<size_t>(num), x.shape()[a] / num), a);
}

Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
           double constant_value) {
  std::vector<int64_t> flat;
  for (const auto& [before, after] : paddings) {
    flat.push_back(before);
    flat.push_back(after);
  }
  return apply(OpId::pad, {x}, {{attr::paddings, flat}, {attr::value, constant_value}});
}

}  // namespace ops
}  // namespace kiln
