// Moves an elementwise mask off a max-pool gradient onto the pooled gradient. Backpropagating
// relu(z) -> max_pool2d gives mul(max_pool2d_grad(y, g), cast(greater(y, c))): a full-size mask
// pass over the pool's input. Only each window's argmax receives gradient, and there y equals the
// pooled value p, so the same result is max_pool2d_grad(y, mul(g, cast(greater(p, c)))): the mask
// is taken over the pooled tensor, a window's size smaller, and the full-size pass is gone.
// Masking by 0 or 1 is exact, so values are unchanged (a window's gradient is masked before its
// overlapping windows' contributions are summed rather than after, which is also exact).
#include <optional>

#include "kiln/engine/passes/graph_rewriter.h"
#include "kiln/engine/passes/passes.h"

namespace kiln::engine {
namespace {

// mul(max_pool2d_grad(y, g), cast(greater(y, c))), either operand order, with the pool's forward
// max_pool2d(y) in the graph.
struct PooledMask {
  NodeId pool;       // max_pool2d(y)
  NodeId gradient;   // max_pool2d_grad(y, g)
  NodeId threshold;  // c, a scalar
};

std::optional<PooledMask> match(const Graph& g, NodeId id, const NodeMap<int>& uses) {
  const GraphNode& n = g.node(id);
  if (n.op != OpId::mul) return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    const NodeId grad_id = n.inputs[side];
    const GraphNode& grad = g.node(grad_id);
    const GraphNode& cast = g.node(n.inputs[1 - side]);
    // A gradient used elsewhere would still be computed, so nothing would be saved.
    if (grad.op != OpId::max_pool2d_grad || uses[grad_id] != 1 || grad.meta != n.meta ||
        cast.op != OpId::cast || cast.meta.dtype != n.meta.dtype)
      continue;
    const GraphNode& greater = g.node(cast.inputs[0]);
    const NodeId y = grad.inputs[0];
    if (greater.op != OpId::greater || greater.inputs[0] != y ||
        g.node(greater.inputs[1]).meta.shape.rank() != 0)
      continue;
    for (const NodeId p : NodeIds(id.index())) {
      const GraphNode& pool = g.node(p);
      if (pool.op == OpId::max_pool2d && pool.inputs[0] == y && pool.attrs == grad.attrs)
        return PooledMask{p, grad_id, greater.inputs[1]};
    }
  }
  return std::nullopt;
}

}  // namespace

Graph mask_pooled_gradients(const Graph& input) {
  // Nodes that earlier passes bypassed would still count as uses.
  const Graph graph = eliminate_dead_code(input);
  const NodeMap<int> uses = use_counts(graph);
  GraphRewriter out(graph);
  for (const NodeId id : graph.nodes.ids()) {
    const std::optional<PooledMask> m = match(graph, id, uses);
    if (!m) {
      out.copy(id);
      continue;
    }
    const GraphNode& grad = graph.node(m->gradient);
    const NodeId keep = out.emit(OpId::greater, {out.mapped(m->pool), out.mapped(m->threshold)});
    const NodeId mask = out.emit(OpId::cast, {keep}, {{attr::dtype, graph.nodes[id].meta.dtype}});
    const NodeId masked = out.emit(OpId::mul, {out.mapped(grad.inputs[1]), mask});
    out.define(id,
               out.emit(OpId::max_pool2d_grad, {out.mapped(grad.inputs[0]), masked}, grad.attrs));
  }
  return out.finish();
}

}  // namespace kiln::engine
