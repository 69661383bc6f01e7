// Collectives: the ranks of distributed::world() combine a tensor. all_reduce is a start (issue
// the reduction, return at once) and a wait (the reduced values), so the engine can place work
// between them; the reduction runs on the communicator's own thread meanwhile.
#include "kiln/framework/distributed/communicator.h"
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

using distributed::ReduceOp;

TensorMeta infer_collective(std::span<const TensorMeta> in, const Attrs&) {
  KILN_SHAPE_CHECK(in[0].dtype != DType::f16 && in[0].dtype != DType::bf16,
                   "reduces float16 and bfloat16 as float32 (ops::all_reduce casts them), got ",
                   dtype_name(in[0].dtype));
  return in[0];
}

// y_r = op over ranks of x_r, and the loss is the sum of every rank's: dL/dx_r is the sum over
// ranks of their dL/dy (a mean divides it by the number of ranks as the forward did).
std::vector<Tensor> grad_all_reduce_start(const GradContext& c) {
  const auto op = static_cast<ReduceOp>(c.attrs().get(attr::reduction));
  KILN_CHECK(op != ReduceOp::max, "all_reduce with max has no gradient");
  return {ops::all_reduce(c.grad, op)};
}

std::vector<Tensor> grad_all_reduce_wait(const GradContext& c) {
  return {c.grad};
}

}  // namespace

void define_collective_ops(OpTable& t) {
  defs::def(t, OpId::all_reduce_start, "all_reduce_start", 1, infer_collective,
            grad_all_reduce_start);
  defs::def(t, OpId::all_reduce_wait, "all_reduce_wait", 1, infer_collective, grad_all_reduce_wait);
}

namespace ops {

Tensor all_reduce_start(const Tensor& x, ReduceOp op, int64_t bucket) {
  return apply(OpId::all_reduce_start, {x},
               {{attr::reduction, static_cast<int64_t>(op)}, {attr::bucket, bucket}});
}

Tensor all_reduce_wait(const Tensor& started, int64_t bucket) {
  return apply(OpId::all_reduce_wait, {started}, {{attr::bucket, bucket}});
}

Tensor all_reduce(const Tensor& x, ReduceOp op) {
  if (x.dtype() == DType::f16 || x.dtype() == DType::bf16)
    return cast(all_reduce(cast(x, DType::f32), op), x.dtype());
  return all_reduce_wait(all_reduce_start(x, op));
}

}  // namespace ops
}  // namespace kiln
