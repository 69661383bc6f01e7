// The entries of the ops that exist only in traced graphs: the boundary ops (names for dumps, no
// kernels, no gradients: a placeholder or variable read is where the gradient walk stops) and
// the fused op the engine's fusion pass makes after autodiff (so it needs no gradient either).
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
namespace {

// Their metas come from what they bind (argument, constant, variable), never from inputs.
TensorMeta infer_bound(std::span<const TensorMeta>, const Attrs&) {
  throw ShapeError("a graph boundary op has no shape inference; its value is bound when it runs");
}

// Their metas come from their subgraphs, which the engine plans; the op table never sees them.
TensorMeta infer_planned(std::span<const TensorMeta>, const Attrs&) {
  throw ShapeError("a control-flow op's metas come from its subgraphs; the engine plans them");
}

// Every input broadcasts to the output, as in the chain it replaces; the output dtype is an
// attr because inference does not see the program.
TensorMeta infer_fused_elementwise(std::span<const TensorMeta> in, const Attrs& attrs) {
  KILN_SHAPE_CHECK(!in.empty(), "a fused program needs at least one input");
  Shape shape = in[0].shape;
  for (size_t k = 1; k < in.size(); ++k) shape = broadcast_shapes(shape, in[k].shape);
  return {attrs.get(attr::dtype), shape, in[0].device};
}

}  // namespace

void define_graph_ops(OpTable& t) {
  defs::def(t, OpId::placeholder, "placeholder", 0, infer_bound, nullptr);
  defs::def(t, OpId::constant, "constant", 0, infer_bound, nullptr);
  defs::def(t, OpId::read_variable, "read_variable", 0, infer_bound, nullptr);
  defs::def(t, OpId::fused_elementwise, "fused_elementwise", -1, infer_fused_elementwise, nullptr);
  defs::def(t, OpId::cond, "cond", -1, infer_planned, nullptr);
  defs::def(t, OpId::while_loop, "while_loop", -1, infer_planned, nullptr);
  defs::def(t, OpId::tuple_get, "tuple_get", 1, infer_planned, nullptr);
}

}  // namespace kiln
