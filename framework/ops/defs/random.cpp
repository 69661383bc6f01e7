// Stateless random ops: values are a pure function of the seed input, so traced graphs stay
// deterministic and replayable; state (a seed that advances per step) lives in variables.
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

// random_uniform: inputs (like, seed int64[2]); attrs dtype.
TensorMeta infer_random_uniform(std::span<const TensorMeta> in, const Attrs& attrs) {
  KILN_SHAPE_CHECK(in[1].dtype == DType::i64 && in[1].shape.rank() == 1 && in[1].shape[0] == 2,
                   "the seed must be int64[2], got ", describe(in[1]));
  const DType dtype = attrs.get(attr::dtype);
  KILN_SHAPE_CHECK(is_floating(dtype), "dtype must be floating, got ", dtype_name(dtype));
  return {dtype, in[0].shape, in[0].device};
}

}  // namespace

void define_random_ops(OpTable& t) {
  // No gradient: the values do not depend on `like`'s data, only on its shape.
  defs::def(t, OpId::random_uniform, "random_uniform", 2, infer_random_uniform, nullptr);
}

namespace ops {

Tensor random_uniform_like(const Tensor& like, const Tensor& seed, DType dtype) {
  return apply(OpId::random_uniform, {stop_gradient(like), seed}, {{attr::dtype, dtype}});
}

}  // namespace ops
}  // namespace kiln
