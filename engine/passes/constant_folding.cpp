// Constant folding: a node computed from constants alone is evaluated once, while optimizing, and
// becomes a constant itself. The constants it read are left for dead-code elimination.
#include <algorithm>
#include <memory>
#include <optional>

#include "kiln/engine/graph/op_traits.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::engine {
namespace {

// A larger result would be stored in the graph for the life of the trace; computing it per call
// is cheap next to that.
constexpr int64_t kMaxFoldedElements = int64_t{1} << 16;

bool foldable(const Graph& g, const GraphNode& n) {
  // apply() takes op, inputs and attrs only: a node with a payload cannot be re-run through it.
  if (Graph::is_boundary(n.op) || is_collective(n.op) || n.payload != nullptr || n.inputs.empty())
    return false;
  const OpDef& def = op_def(n.op);
  // One constant cannot stand for an op's several outputs (its tuple_gets read them).
  if (def.num_outputs > 1) return false;
  if (def.view == nullptr && def.kernels[static_cast<size_t>(n.meta.device.type)] == nullptr)
    return false;
  const int64_t numel = n.meta.shape.numel();
  if (numel < 0 || numel > kMaxFoldedElements) return false;
  return std::all_of(n.inputs.begin(), n.inputs.end(),
                     [&](NodeId in) { return g.nodes[in].op == OpId::constant; });
}

// size_of reads only its input's shape: where the traced dims it counts are known (no unknown
// batch), it is a constant whatever the input's values (a mean's divisor, say).
std::optional<Tensor> known_size(const Graph& g, const GraphNode& n) {
  if (n.op != OpId::size_of) return std::nullopt;
  const Shape& shape = g.nodes[n.inputs[0]].meta.shape;
  std::vector<int64_t> axes = n.attrs.get(attr::axes);
  if (axes.empty())
    for (int64_t a = 0; a < shape.rank(); ++a) axes.push_back(a);
  double count = 1;
  for (int64_t a : axes) {
    const int64_t d = shape[static_cast<int>(a)];
    if (d == Shape::kUnknownDim) return std::nullopt;
    count *= static_cast<double>(d);
  }
  return scalar(count, n.meta.dtype, n.meta.device);
}

}  // namespace

Graph fold_constants(const Graph& graph) {
  Graph g = graph;
  NoGradGuard no_grad;
  // In order, so a folded node counts as a constant for the nodes after it.
  for (const NodeId id : g.nodes.ids()) {
    GraphNode& n = g.nodes[id];
    if (const std::optional<Tensor> size = known_size(g, n)) {
      n = GraphNode{OpId::constant, {}, {}, size->meta(), std::make_shared<ConstantPayload>(*size)};
      continue;
    }
    if (!foldable(g, n)) continue;
    std::vector<Tensor> inputs;
    for (const NodeId in : n.inputs) inputs.push_back(g.constant(in).value);
    Tensor value = apply(n.op, std::move(inputs), n.attrs);
    if (value.meta() != n.meta) continue;
    n = GraphNode{OpId::constant, {}, {}, value.meta(), std::make_shared<ConstantPayload>(value)};
  }
  return g;
}

}  // namespace kiln::engine
