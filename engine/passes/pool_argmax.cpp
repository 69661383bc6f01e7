// Keeps a max pool's argmax for its gradient. max_pool2d_grad(x, g) finds each window's maximum
// again, reading all of x a second time, although the forward max_pool2d(x) found them. The
// forward becomes max_pool2d_with_argmax(x), whose second output (one uint8 per pooled value) goes
// to max_pool2d_grad_from_argmax(argmax, g): the gradient reads a window's size less, and x is no
// longer needed after the forward. The same maxima receive the same gradients, so values are
// unchanged.
#include <optional>

#include "kiln/engine/passes/graph_rewriter.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/pool_argmax_limit.h"

namespace kiln::engine {
namespace {

// Whether the pool's argmax can be kept: its device has both ops' kernels, its window fits a
// uint8 as oneDNN stores it and the gradient's attrs can name its input's height and width.
bool can_keep_argmax(const GraphNode& pool) {
  const auto device = static_cast<size_t>(pool.meta.device.type);
  if (op_def(OpId::max_pool2d_with_argmax).kernels[device] == nullptr ||
      op_def(OpId::max_pool2d_grad_from_argmax).kernels[device] == nullptr)
    return false;
  const std::vector<int64_t>& window = pool.attrs.get(attr::pool_size);
  return window[0] * window[1] <= kMaxArgmaxWindowCells;
}

// The max_pool2d over max_pool2d_grad node `grad`'s input with its attrs, if there is one whose
// argmax can be kept.
std::optional<NodeId> forward_pool(const Graph& g, NodeId grad) {
  const GraphNode& n = g.node(grad);
  const Shape& x = g.node(n.inputs[0]).meta.shape;
  if (x[1] < 0 || x[2] < 0) return std::nullopt;
  for (const NodeId p : NodeIds(grad.index())) {
    const GraphNode& pool = g.node(p);
    if (pool.op == OpId::max_pool2d && pool.inputs[0] == n.inputs[0] && pool.attrs == n.attrs &&
        can_keep_argmax(pool))
      return p;
  }
  return std::nullopt;
}

}  // namespace

Graph keep_pool_argmax(const Graph& input) {
  // Nodes that earlier passes bypassed could still look like gradients.
  const Graph graph = eliminate_dead_code(input);
  const size_t count = graph.nodes.size();
  NodeMap<NodeId> pool_of(count);     // per gradient: its forward pool
  NodeMap<bool> keeps(count, false);  // per pool: whether a gradient reads its argmax
  for (const NodeId id : graph.nodes.ids()) {
    if (graph.nodes[id].op != OpId::max_pool2d_grad) continue;
    if (const std::optional<NodeId> pool = forward_pool(graph, id)) {
      pool_of[id] = *pool;
      keeps[*pool] = true;
    }
  }
  GraphRewriter out(graph);
  NodeMap<NodeId> argmax(count);  // per pool: its new argmax node
  for (const NodeId id : graph.nodes.ids()) {
    const GraphNode& n = graph.nodes[id];
    if (keeps[id]) {
      const NodeId pool =
          out.emit(OpId::max_pool2d_with_argmax, {out.mapped(n.inputs[0])}, n.attrs);
      out.define(id, pool);
      argmax[id] = out.emit_output(pool, 1);
    } else if (pool_of[id].valid()) {
      const Shape& x = graph.node(n.inputs[0]).meta.shape;
      Attrs attrs = n.attrs;
      attrs.set(attr::input_hw, std::vector<int64_t>{x[1], x[2]});
      out.define(id, out.emit(OpId::max_pool2d_grad_from_argmax,
                              {argmax[pool_of[id]], out.mapped(n.inputs[1])}, std::move(attrs)));
    } else {
      out.copy(id);
    }
  }
  return out.finish();
}

}  // namespace kiln::engine
