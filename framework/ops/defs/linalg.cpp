// matmul with transposes and broadcast batch dims.
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;

Shape batch_of(const Shape& s) {
  return Shape(std::vector<int64_t>(s.begin(), s.end() - 2));
}

TensorMeta infer_matmul(std::span<const TensorMeta> in, const Attrs& attrs) {
  const Shape& a = in[0].shape;
  const Shape& b = in[1].shape;
  defs::require_same_dtype(in[0], in[1]);
  defs::require_floating(in[0]);
  KILN_SHAPE_CHECK(a.rank() >= 2 && b.rank() >= 2, "operands must have rank >= 2");
  const bool ta = attrs.get(attr::transpose_a);
  const bool tb = attrs.get(attr::transpose_b);
  const int64_t m = ta ? a.dim(-1) : a.dim(-2);
  const int64_t ka = ta ? a.dim(-2) : a.dim(-1);
  const int64_t kb = tb ? b.dim(-1) : b.dim(-2);
  const int64_t n = tb ? b.dim(-2) : b.dim(-1);
  KILN_SHAPE_CHECK(ka < 0 || kb < 0 || ka == kb, "inner dimensions differ: ", ka, " vs ", kb);
  std::vector<int64_t> dims = broadcast_shapes(batch_of(a), batch_of(b)).dims();
  dims.push_back(m);
  dims.push_back(n);
  return {in[0].dtype, Shape(std::move(dims)), in[0].device};
}

// matmul_bias_activation(x, w, b) {relu}: x [..., k] times w [k, n], plus b [n], relu'd when
// the attr says so; the bias pass makes it from a Dense layer's untransposed matmul.
TensorMeta infer_matmul_bias_activation(std::span<const TensorMeta> in, const Attrs& attrs) {
  KILN_SHAPE_CHECK(
      !attrs.get(attr::transpose_a) && !attrs.get(attr::transpose_b) && in[1].shape.rank() == 2,
      "the fused matmul takes an untransposed rank-2 kernel, not ", describe(in[1]));
  const TensorMeta out = infer_matmul(in.first(2), attrs);
  const int64_t n = out.shape.dim(-1);
  KILN_SHAPE_CHECK(in[2].dtype == out.dtype && in[2].shape == Shape{n}, "bias ", describe(in[2]),
                   " does not match ", n, " output columns");
  return out;
}

Grads grad_matmul(const GradContext& c) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  const Tensor& g = c.grad;
  const bool ta = c.attrs().get(attr::transpose_a);
  const bool tb = c.attrs().get(attr::transpose_b);
  Grads out(2);
  if (c.needs[0]) {
    const Tensor da = !ta ? ops::matmul(g, b, false, !tb) : ops::matmul(b, g, tb, true);
    out[0] = ops::sum_to_like(da, a);
  }
  if (c.needs[1]) {
    // A batch of a's against one b (a Dense layer on sequences): the batch folds into the rows,
    // so db is one matmul over all of them instead of a batch of products summed afterwards.
    const int64_t k = a.shape().dim(-1), n = g.shape().dim(-1);
    if (b.rank() == 2 && a.rank() > 2 && !ta && k >= 0 && n >= 0) {
      const Tensor rows = ops::reshape(a, {-1, k}), grad_rows = ops::reshape(g, {-1, n});
      out[1] = !tb ? ops::matmul(rows, grad_rows, true, false)
                   : ops::matmul(grad_rows, rows, true, false);
    } else {
      const Tensor db = !tb ? ops::matmul(a, g, !ta, false) : ops::matmul(g, a, true, ta);
      out[1] = ops::sum_to_like(db, b);
    }
  }
  return out;
}

bool all_ones(const Shape& s) {
  for (int64_t d : s)
    if (d != 1) return false;
  return true;
}

}  // namespace

void define_linalg_ops(OpTable& t) {
  defs::def(t, OpId::matmul, "matmul", 2, infer_matmul, grad_matmul);
  defs::def(t, OpId::matmul_bias_activation, "matmul_bias_activation", 3,
            infer_matmul_bias_activation, nullptr);
}

namespace ops {

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  const Attrs attrs{{attr::transpose_a, transpose_a}, {attr::transpose_b, transpose_b}};
  Tensor pa = a;
  Tensor pb = b;
  if (a.dtype() != b.dtype()) {
    const DType d = promote_types(a.dtype(), b.dtype());
    pa = cast(a, d);
    pb = cast(b, d);
  }
  // Kernels take equal batch dims or one operand without batch; other broadcasts are
  // materialized here.
  if (pa.rank() >= 2 && pb.rank() >= 2) {
    const Shape ba = batch_of(pa.shape());
    const Shape bb = batch_of(pb.shape());
    if (ba != bb && !all_ones(ba) && !all_ones(bb) && ba.is_fully_defined() &&
        bb.is_fully_defined()) {
      const Shape batch = broadcast_shapes(ba, bb);
      auto expand = [&](const Tensor& t) {
        std::vector<int64_t> dims = batch.dims();
        dims.push_back(t.dim(-2));
        dims.push_back(t.dim(-1));
        return broadcast_to(t, Shape(std::move(dims)));
      };
      pa = expand(pa);
      pb = expand(pb);
    }
  }
  return apply(OpId::matmul, {pa, pb}, attrs);
}

}  // namespace ops
}  // namespace kiln
