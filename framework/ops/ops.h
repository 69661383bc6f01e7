#pragma once
// kiln's public ops. Every function works eagerly on concrete tensors, records for autodiff when
// an input requires gradients, and records a graph node when its inputs are symbolic (tracing).
// Binary ops broadcast like NumPy and promote dtypes (see promote_types); a double operand
// takes the tensor's dtype.
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/framework/distributed/reduce_op.h"
#include "kiln/framework/ops/slice_bounds.h"
#include "kiln/framework/ops/unary_op_rows.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::ops {

// ---- unary ----
// One function per row of unary_op_rows.h: neg, abs, sign, exp, log, log1p, sqrt, rsqrt, square,
// tanh, sigmoid, relu, leaky_relu(x, alpha = 0.3) (Keras LeakyReLU's default), elu(x, alpha =
// 1.0), gelu(x, approximate = false), softplus, sin, cos, erf, relu6, hard_sigmoid, hard_silu,
// mish, softsign.
#define KILN_DECLARE_UNARY(X, op, ...) Tensor op(const Tensor& x);
#define KILN_DECLARE_UNARY_ATTR(X, op, F, dtypes, domain, gradient, type, attr, value) \
  Tensor op(const Tensor& x, type attr = value);
KILN_UNARY_OP_ROWS(KILN_DECLARE_UNARY, KILN_DECLARE_UNARY_ATTR, _)
#undef KILN_DECLARE_UNARY_ATTR
#undef KILN_DECLARE_UNARY
Tensor logical_not(const Tensor& x);
Tensor cast(const Tensor& x, DType dtype);
// The same values; gradients flow through unchanged.
Tensor identity(const Tensor& x);
// The same values, but no gradient flows back through the result.
Tensor stop_gradient(const Tensor& x);

// ---- binary (broadcasting) ----
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor equal(const Tensor& a, const Tensor& b);
Tensor not_equal(const Tensor& a, const Tensor& b);
Tensor less(const Tensor& a, const Tensor& b);
Tensor less_equal(const Tensor& a, const Tensor& b);
Tensor greater(const Tensor& a, const Tensor& b);
Tensor greater_equal(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
// Tensor-with-number forms; the number takes the tensor's dtype.
Tensor add(const Tensor& a, double b);
Tensor sub(const Tensor& a, double b);
Tensor mul(const Tensor& a, double b);
Tensor div(const Tensor& a, double b);
Tensor pow(const Tensor& a, double b);
Tensor maximum(const Tensor& a, double b);
Tensor minimum(const Tensor& a, double b);
Tensor greater(const Tensor& a, double b);
Tensor less(const Tensor& a, double b);
// Elementwise cond ? a : b, all three broadcast together.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor clip(const Tensor& x, double min_value, double max_value);

// ---- reductions (axes empty = all axes; negative axes count from the end) ----
Tensor sum(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor mean(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor max(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor min(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor prod(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor logsumexp(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor variance(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdims = false);
Tensor argmax(const Tensor& x, int64_t axis = -1, bool keepdims = false);  // int64
Tensor argmin(const Tensor& x, int64_t axis = -1, bool keepdims = false);  // int64
// Sums a broadcast result back down to `shape` (the gradient of broadcasting).
Tensor sum_to(const Tensor& x, const Shape& shape);
// The same to like's shape, read when the op runs: works while tracing with unknown dims.
Tensor sum_to_like(const Tensor& x, const Tensor& like);
// The number of elements of x over `axes` (all when empty) as a scalar of `dtype`, read from
// x's shape when the op runs (mean over dims unknown while tracing).
Tensor size_of(const Tensor& x, std::vector<int64_t> axes = {}, DType dtype = DType::f32);

// ---- linear algebra ----
// [..., M, K] x [..., K, N] -> [..., M, N]; batch dims broadcast; 1-D operands are not promoted.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

// ---- shapes ----
// One dim may be -1 and is inferred.
Tensor reshape(const Tensor& x, const Shape& shape);
Tensor flatten(const Tensor& x);  // [N, ...] -> [N, prod(...)]
// perm empty = reverse the axes.
Tensor transpose(const Tensor& x, std::vector<int64_t> perm = {});
Tensor expand_dims(const Tensor& x, int64_t axis);
// axes empty = every size-1 axis.
Tensor squeeze(const Tensor& x, std::vector<int64_t> axes = {});
Tensor broadcast_to(const Tensor& x, const Shape& shape);
// x broadcast or reshaped to the shape `like` has when the op runs (unknown dims allowed).
Tensor broadcast_like(const Tensor& x, const Tensor& like);
Tensor reshape_like(const Tensor& x, const Tensor& like);
// x's first dim split into like's first `leading` dims, as they are when the op runs:
// [B*T, ...] -> [B, T, ...] for a `like` of shape [B, T, ...] with B and T unknown while tracing.
Tensor unflatten_like(const Tensor& x, const Tensor& like, int64_t leading);
// Zeros or ones of x's shape and dtype; for a symbolic x a recorded broadcast of a scalar.
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
// size -1 = to the end of the axis.
Tensor slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> size);
// Python-style x[begin:end:stride] per axis; negative begin/end count from the end; strides may
// be negative; kSliceEnd is an omitted bound (x[::-1] is {kSliceEnd}, {kSliceEnd}, {-1}). Axes of
// unknown size (while tracing) are resolved when the op runs.
Tensor strided_slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> end,
                     std::vector<int64_t> strides);
Tensor concat(const std::vector<Tensor>& xs, int64_t axis = 0);
Tensor stack(const std::vector<Tensor>& xs, int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, int64_t num, int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis);
// paddings: (before, after) per axis.
Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
           double constant_value = 0);

// ---- indexing ----
// numpy.take(params, indices, axis): out shape = params[:axis] + indices + params[axis+1:].
Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis = 0);
// numpy.take_along_axis: indices has x's rank; out has indices' shape.
Tensor take_along_axis(const Tensor& x, const Tensor& indices, int64_t axis);
// base with updates added at `indices` along `axis` (the adjoint of gather).
Tensor scatter_add(const Tensor& base, const Tensor& indices, const Tensor& updates,
                   int64_t axis = 0);
Tensor one_hot(const Tensor& indices, int64_t depth, DType dtype = DType::f32);
// int64 0, 1, ..., n - 1 for n = like's size along `axis` when the op runs (positions along an
// axis of unknown size while tracing, a causal mask's rows and columns).
Tensor range_like(const Tensor& like, int64_t axis);

// ---- random (stateless) ----
// Uniform values in [0, 1) of like's shape (read when the op runs, so unknown dims trace), from
// a Philox stream keyed by `seed`, an int64 tensor of 2 elements. The same seed gives the same
// values on any thread count; graphs advance a seed variable per step (layers' SeedGenerator).
Tensor random_uniform_like(const Tensor& like, const Tensor& seed, DType dtype = DType::f32);

// ---- collectives across the ranks of distributed::world() ----
// Every rank gets the reduction of all ranks' `x` (the same shape everywhere). The gradient of
// a sum is the sum of the ranks' gradients. float16 and bfloat16 reduce as float32.
Tensor all_reduce(const Tensor& x, distributed::ReduceOp op = distributed::ReduceOp::sum);
// The two halves of all_reduce, for overlap: start issues the reduction and returns at once,
// wait (on start's result) returns the reduced values once they are there. Work placed between
// them runs while the ranks communicate. `bucket` names the reduction in graphs and errors
// (-1: none).
Tensor all_reduce_start(const Tensor& x, distributed::ReduceOp op, int64_t bucket = -1);
Tensor all_reduce_wait(const Tensor& started, int64_t bucket = -1);

// ---- neural network ----
Tensor softmax(const Tensor& x, int64_t axis = -1);
Tensor log_softmax(const Tensor& x, int64_t axis = -1);
// Keras's glu: the first half of x along `axis` times the sigmoid of the second half.
Tensor glu(const Tensor& x, int64_t axis = -1);

enum class Padding { valid, same };
Padding parse_padding(std::string_view name);  // "valid" / "same"

// NHWC input, HWIO kernel [kh, kw, in/groups, out] (the Keras layouts).
Tensor conv2d(const Tensor& x, const Tensor& kernel, std::vector<int64_t> strides = {1, 1},
              Padding padding = Padding::valid, std::vector<int64_t> dilation = {1, 1},
              int64_t groups = 1);
// NWC input, WIO kernel [kw, in/groups, out].
Tensor conv1d(const Tensor& x, const Tensor& kernel, int64_t stride = 1,
              Padding padding = Padding::valid, int64_t dilation = 1, int64_t groups = 1);
// NHWC; strides empty = pool_size (the Keras default).
Tensor max_pool2d(const Tensor& x, std::vector<int64_t> pool_size,
                  std::vector<int64_t> strides = {}, Padding padding = Padding::valid);
Tensor avg_pool2d(const Tensor& x, std::vector<int64_t> pool_size,
                  std::vector<int64_t> strides = {}, Padding padding = Padding::valid);

}  // namespace kiln::ops

namespace kiln {
Tensor operator-(const Tensor& x);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);
}  // namespace kiln
