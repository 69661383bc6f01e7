// Convolution and pooling (NHWC, Keras layouts) with their backward ops, and softmax.
#include "kiln/framework/ops/conv_geometry.h"
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/pool_argmax_limit.h"

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;

// Attrs of conv2d: strides [2], dilation [2], same (bool), groups.
Shape conv_output_shape(const Shape& x, const Shape& w, const Attrs& attrs) {
  const auto& s = attrs.get(attr::strides);
  const auto& d = attrs.get(attr::dilation);
  const bool same = attrs.get(attr::same);
  const int64_t oh = axis_geometry(x[1], w[0], s[0], d[0], same).out;
  const int64_t ow = axis_geometry(x[2], w[1], s[1], d[1], same).out;
  return {x[0], oh, ow, w[3]};
}

void check_conv_operands(const TensorMeta& x, const TensorMeta& w, const Attrs& attrs) {
  defs::require_floating(x);
  defs::require_same_dtype(x, w);
  KILN_SHAPE_CHECK(x.shape.rank() == 4, "input must be NHWC (rank 4)");
  KILN_SHAPE_CHECK(w.shape.rank() == 4, "kernel must be [kh, kw, in/groups, out] (rank 4)");
  const int64_t groups = attrs.get(attr::groups);
  KILN_SHAPE_CHECK(groups >= 1 && w.shape[3] % groups == 0, "output channels ", w.shape[3],
                   " are not divisible by groups=", groups);
  KILN_SHAPE_CHECK(x.shape[3] < 0 || x.shape[3] == w.shape[2] * groups, "input channels ",
                   x.shape[3], " do not match kernel in-channels ", w.shape[2], " x groups ",
                   groups);
  for (int64_t v : attrs.get(attr::strides)) KILN_SHAPE_CHECK(v >= 1, "strides must be >= 1");
  for (int64_t v : attrs.get(attr::dilation)) KILN_SHAPE_CHECK(v >= 1, "dilation must be >= 1");
}

TensorMeta infer_conv2d(std::span<const TensorMeta> in, const Attrs& attrs) {
  check_conv_operands(in[0], in[1], attrs);
  const Shape out = conv_output_shape(in[0].shape, in[1].shape, attrs);
  KILN_SHAPE_CHECK(out[1] != 0 && out[2] != 0, "the kernel does not fit the input (output ", out,
                   ")");
  return {in[0].dtype, out, in[0].device};
}
// inputs: (x, kernel, bias[out channels]); conv2d's attrs and relu (bool): relu(conv2d(x, kernel)
// + bias) in one pass over the output. Only the graph pass that fuses these ops makes it, after
// differentiation, so it has no gradient.
TensorMeta infer_conv2d_bias_activation(std::span<const TensorMeta> in, const Attrs& attrs) {
  const TensorMeta out = infer_conv2d(in.first(2), attrs);
  KILN_SHAPE_CHECK(in[2].dtype == out.dtype && in[2].shape == Shape{out.shape[3]}, "bias ",
                   describe(in[2]), " does not match ", out.shape[3], " output channels");
  return out;
}
// The backward ops take their output shape from an attr; inference re-runs the forward op's
// inference on the implied forward operands, which validates them and the incoming gradient.
void check_incoming_grad(const TensorMeta& grad, const TensorMeta& expected) {
  KILN_SHAPE_CHECK(grad.shape == expected.shape && grad.dtype == expected.dtype,
                   "the incoming gradient ", describe(grad), " does not match the forward output ",
                   describe(expected));
}
// inputs: (grad_out, kernel[, shape source]); attr input_shape
TensorMeta infer_conv2d_backprop_input(std::span<const TensorMeta> in, const Attrs& attrs) {
  const TensorMeta x{in[1].dtype, defs::forward_shape(in, 2, attrs, "input_shape"), in[1].device};
  const TensorMeta forward[] = {x, in[1]};
  check_incoming_grad(in[0], infer_conv2d(forward, attrs));
  return x;
}
// inputs: (input, grad_out); attr filter_shape
TensorMeta infer_conv2d_backprop_filter(std::span<const TensorMeta> in, const Attrs& attrs) {
  const TensorMeta w{in[0].dtype, Shape(attrs.get(attr::filter_shape)), in[0].device};
  const TensorMeta forward[] = {in[0], w};
  check_incoming_grad(in[1], infer_conv2d(forward, attrs));
  return w;
}

Attrs with_shape(const Attrs& attrs, const char* key, const Shape& shape) {
  Attrs out = attrs;
  out.set(key, shape.dims());
  return out;
}
Attrs conv_attrs_only(const Attrs& attrs) {
  return {{attr::strides, attrs.get(attr::strides)},
          {attr::dilation, attrs.get(attr::dilation)},
          {attr::same, attrs.get(attr::same)},
          {attr::groups, attrs.get(attr::groups)}};
}

Tensor backprop_input(const Tensor& g, const Tensor& w, const Attrs& conv, const Tensor& x) {
  return apply(OpId::conv2d_backprop_input, defs::with_shape_source({g, w}, x),
               with_shape(conv, "input_shape", x.shape()));
}
Tensor backprop_filter(const Tensor& x, const Tensor& g, const Attrs& conv, const Shape& w_shape) {
  return apply(OpId::conv2d_backprop_filter, {x, g}, with_shape(conv, "filter_shape", w_shape));
}

Grads grad_conv2d(const GradContext& c) {
  const Attrs conv = conv_attrs_only(c.attrs());
  Grads g(2);
  if (c.needs[0]) g[0] = backprop_input(c.grad, c.input(1), conv, c.input(0));
  if (c.needs[1]) g[1] = backprop_filter(c.input(0), c.grad, conv, c.input(1).shape());
  return g;
}
// dx = B(g, w) is bilinear: its adjoints are conv2d and backprop_filter.
Grads grad_conv2d_backprop_input(const GradContext& c) {
  const Attrs conv = conv_attrs_only(c.attrs());
  Grads g(2);
  if (c.needs[0]) g[0] = apply(OpId::conv2d, {c.grad, c.input(1)}, conv);
  if (c.needs[1]) g[1] = backprop_filter(c.grad, c.input(0), conv, c.input(1).shape());
  return g;
}
Grads grad_conv2d_backprop_filter(const GradContext& c) {
  const Attrs conv = conv_attrs_only(c.attrs());
  Grads g(2);
  if (c.needs[0]) g[0] = backprop_input(c.input(1), c.grad, conv, c.input(0));
  if (c.needs[1]) g[1] = apply(OpId::conv2d, {c.input(0), c.grad}, conv);
  return g;
}

// Pool attrs: pool_size [2], strides [2], same (bool).
TensorMeta infer_pool(std::span<const TensorMeta> in, const Attrs& attrs) {
  defs::require_floating(in[0]);
  const Shape& x = in[0].shape;
  KILN_SHAPE_CHECK(x.rank() == 4, "input must be NHWC (rank 4)");
  const auto& k = attrs.get(attr::pool_size);
  const auto& s = attrs.get(attr::strides);
  const bool same = attrs.get(attr::same);
  const int64_t oh = axis_geometry(x[1], k[0], s[0], 1, same).out;
  const int64_t ow = axis_geometry(x[2], k[1], s[1], 1, same).out;
  KILN_SHAPE_CHECK(oh != 0 && ow != 0, "pool window ", k[0], "x", k[1], " does not fit input");
  return {in[0].dtype, Shape{x[0], oh, ow, x[3]}, in[0].device};
}
// max_pool2d_grad inputs: (x, grad_out) -> dx
TensorMeta infer_max_pool_grad(std::span<const TensorMeta> in, const Attrs& attrs) {
  check_incoming_grad(in[1], infer_pool(in.first(1), attrs));
  return in[0];
}
// max_pool2d_with_argmax: (x) -> (the pooled x, argmax), pool attrs. argmax is uint8 of the pooled
// shape: the position of each window's maximum in its window, kh * pool width + kw (padding cells
// counted, never chosen; the first of equal values). Only the graph pass that keeps a pool's
// argmax for its gradient makes it, after differentiation, so it has no gradient.
std::vector<TensorMeta> infer_pool_argmax(std::span<const TensorMeta>, const Attrs& attrs,
                                          const TensorMeta& pooled) {
  const auto& k = attrs.get(attr::pool_size);
  KILN_SHAPE_CHECK(k[0] * k[1] <= kMaxArgmaxWindowCells, "a ", k[0], "x", k[1],
                   " window has more than the ", kMaxArgmaxWindowCells,
                   " cells whose argmax is kept as uint8");
  return {{DType::u8, pooled.shape, pooled.device}};
}
// max_pool2d_grad_from_argmax inputs: (argmax, grad_out); pool attrs and input_hw [H, W] -> dx,
// of grad_out's batch, channels and dtype. Made with max_pool2d_with_argmax.
TensorMeta infer_max_pool_grad_from_argmax(std::span<const TensorMeta> in, const Attrs& attrs) {
  KILN_SHAPE_CHECK(in[0].dtype == DType::u8 && in[0].shape == in[1].shape, "argmax ",
                   describe(in[0]), " is not uint8 of the incoming gradient's shape ",
                   describe(in[1]));
  KILN_SHAPE_CHECK(in[1].shape.rank() == 4, "the incoming gradient must be NHWC (rank 4)");
  const auto& hw = attrs.get(attr::input_hw);
  KILN_SHAPE_CHECK(hw.size() == 2 && hw[0] >= 0 && hw[1] >= 0, "input_hw must be [height, width]");
  const TensorMeta x{in[1].dtype, Shape{in[1].shape[0], hw[0], hw[1], in[1].shape[3]},
                     in[1].device};
  check_incoming_grad(in[1], infer_pool(std::span<const TensorMeta>(&x, 1), attrs));
  return x;
}
// avg_pool2d_grad inputs: grad_out[, shape source]; attr input_shape -> dx
TensorMeta infer_avg_pool_grad(std::span<const TensorMeta> in, const Attrs& attrs) {
  const TensorMeta x{in[0].dtype, defs::forward_shape(in, 1, attrs, "input_shape"), in[0].device};
  check_incoming_grad(in[0], infer_pool(std::span<const TensorMeta>(&x, 1), attrs));
  return x;
}

Grads grad_max_pool(const GradContext& c) {
  return {apply(OpId::max_pool2d_grad, {c.input(0), c.grad}, c.attrs())};
}
Grads grad_avg_pool(const GradContext& c) {
  return {apply(OpId::avg_pool2d_grad, defs::with_shape_source({c.grad}, c.input(0)),
                with_shape(c.attrs(), "input_shape", c.input(0).shape()))};
}
// avg_pool2d_grad is linear; its adjoint is the pooling itself.
Grads grad_avg_pool_grad(const GradContext& c) {
  return {apply(OpId::avg_pool2d, {c.grad},
                {{attr::pool_size, c.attrs().get(attr::pool_size)},
                 {attr::strides, c.attrs().get(attr::strides)},
                 {attr::same, c.attrs().get(attr::same)}})};
}

std::vector<int64_t> pair_of(const std::vector<int64_t>& v, const char* what, const char* op) {
  KILN_CHECK(v.size() == 2 || v.size() == 1, "kiln::ops::", op, ": ", what,
             " needs 1 or 2 values, got ", v.size());
  return v.size() == 2 ? v : std::vector<int64_t>{v[0], v[0]};
}

Tensor pool(OpId op, const Tensor& x, std::vector<int64_t> pool_size, std::vector<int64_t> strides,
            ops::Padding padding) {
  const char* name = op_def(op).name;
  pool_size = pair_of(pool_size, "pool_size", name);
  strides = strides.empty() ? pool_size : pair_of(strides, "strides", name);
  return apply(op, {x},
               {{attr::pool_size, pool_size},
                {attr::strides, strides},
                {attr::same, padding == ops::Padding::same}});
}

}  // namespace

void define_nn_ops(OpTable& t) {
  defs::def(t, OpId::conv2d, "conv2d", 2, infer_conv2d, grad_conv2d);
  defs::def(t, OpId::conv2d_bias_activation, "conv2d_bias_activation", 3,
            infer_conv2d_bias_activation, nullptr);
  // -1: the backward ops with an input shape take an optional shape source (infer_helpers.h).
  defs::def(t, OpId::conv2d_backprop_input, "conv2d_backprop_input", -1,
            infer_conv2d_backprop_input, grad_conv2d_backprop_input);
  defs::def(t, OpId::conv2d_backprop_filter, "conv2d_backprop_filter", 2,
            infer_conv2d_backprop_filter, grad_conv2d_backprop_filter);
  defs::def(t, OpId::max_pool2d, "max_pool2d", 1, infer_pool, grad_max_pool);
  defs::def(t, OpId::max_pool2d_grad, "max_pool2d_grad", 2, infer_max_pool_grad, nullptr);
  defs::def(t, OpId::max_pool2d_with_argmax, "max_pool2d_with_argmax", 1, infer_pool, nullptr);
  t[OpId::max_pool2d_with_argmax].num_outputs = 2;
  t[OpId::max_pool2d_with_argmax].infer_more = infer_pool_argmax;
  defs::def(t, OpId::max_pool2d_grad_from_argmax, "max_pool2d_grad_from_argmax", 2,
            infer_max_pool_grad_from_argmax, nullptr);
  defs::def(t, OpId::avg_pool2d, "avg_pool2d", 1, infer_pool, grad_avg_pool);
  defs::def(t, OpId::avg_pool2d_grad, "avg_pool2d_grad", -1, infer_avg_pool_grad,
            grad_avg_pool_grad);
}

namespace ops {

Padding parse_padding(std::string_view name) {
  if (name == "valid") return Padding::valid;
  if (name == "same") return Padding::same;
  throw Error(detail::concat("unknown padding '", name, "' (expected 'valid' or 'same')"));
}

Tensor conv2d(const Tensor& x, const Tensor& kernel, std::vector<int64_t> strides, Padding padding,
              std::vector<int64_t> dilation, int64_t groups) {
  return apply(OpId::conv2d, {x, kernel},
               {{attr::strides, pair_of(strides, "strides", "conv2d")},
                {attr::dilation, pair_of(dilation, "dilation", "conv2d")},
                {attr::same, padding == Padding::same},
                {attr::groups, groups}});
}

Tensor conv1d(const Tensor& x, const Tensor& kernel, int64_t stride, Padding padding,
              int64_t dilation, int64_t groups) {
  KILN_CHECK(x.rank() == 3 && kernel.rank() == 3, "kiln::ops::conv1d: expects NWC input and ",
             "[kw, in/groups, out] kernel, got ", describe(x.meta()), " and ",
             describe(kernel.meta()));
  // A 1-D convolution is a 2-D one over a height of 1.
  const Tensor y = conv2d(expand_dims(x, 1), expand_dims(kernel, 0), {1, stride}, padding,
                          {1, dilation}, groups);
  return squeeze(y, {1});
}

Tensor max_pool2d(const Tensor& x, std::vector<int64_t> pool_size, std::vector<int64_t> strides,
                  Padding padding) {
  return pool(OpId::max_pool2d, x, std::move(pool_size), std::move(strides), padding);
}
Tensor avg_pool2d(const Tensor& x, std::vector<int64_t> pool_size, std::vector<int64_t> strides,
                  Padding padding) {
  return pool(OpId::avg_pool2d, x, std::move(pool_size), std::move(strides), padding);
}

Tensor softmax(const Tensor& x, int64_t axis) {
  const Tensor shifted = x - stop_gradient(max(x, {axis}, true));
  const Tensor e = exp(shifted);
  return e / sum(e, {axis}, true);
}

Tensor glu(const Tensor& x, int64_t axis) {
  const int64_t rank = x.shape().rank();
  const int64_t a = axis < 0 ? axis + rank : axis;
  KILN_CHECK(a >= 0 && a < rank, "kiln::ops::glu: axis ", axis, " is out of range for ", x.shape());
  const int64_t n = x.shape()[a];
  KILN_CHECK(n > 0 && n % 2 == 0, "kiln::ops::glu: axis ", axis, " of ", x.shape(),
             " must have a known even size, to split in halves");
  std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
  std::vector<int64_t> size(static_cast<size_t>(rank), -1);
  size[static_cast<size_t>(a)] = n / 2;
  const Tensor first = slice(x, begin, size);
  begin[static_cast<size_t>(a)] = n / 2;
  return first * sigmoid(slice(x, begin, size));
}

Tensor log_softmax(const Tensor& x, int64_t axis) {
  const Tensor shifted = x - stop_gradient(max(x, {axis}, true));
  return shifted - log(sum(exp(shifted), {axis}, true));
}

}  // namespace ops
}  // namespace kiln
