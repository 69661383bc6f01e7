// The graph ops' entries: names for dumps, no kernels, no gradients (a placeholder or variable
// read is where the gradient walk stops).
#include "framework/core/error.h"
#include "framework/ops/defs/infer_helpers.h"
#include "framework/ops/op_def.h"

namespace kiln {
namespace {

// Their metas come from what they bind (argument, constant, variable), never from inputs.
TensorMeta infer_bound(std::span<const TensorMeta>, const Attrs&) {
  throw ShapeError("a graph boundary op has no shape inference; its value is bound when it runs");
}

}  // namespace

void define_graph_ops(OpTable& t) {
  defs::def(t, OpId::placeholder, "placeholder", 0, infer_bound, nullptr);
  defs::def(t, OpId::constant, "constant", 0, infer_bound, nullptr);
  defs::def(t, OpId::read_variable, "read_variable", 0, infer_bound, nullptr);
}

}  // namespace kiln
