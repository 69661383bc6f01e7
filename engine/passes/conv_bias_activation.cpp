// Folds a convolution's bias add, and the relu after it, into the convolution: Conv2D with a
// bias and activation="relu" traces conv2d, add and relu, and the two elementwise ops cost two
// more passes over the convolution's output (one after elementwise fusion) that the convolution
// can do as it stores each block. Runs after differentiation, on the forward ops only: the
// backward reads the relu's output, which the fused node still produces, and never the
// intermediate values it drops.
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::engine {
namespace {

// For add(conv2d(x, w), b) or add(b, conv2d(x, w)) with b one value per output channel and the
// convolution's value used only by the add: the conv2d's id and b's. None otherwise.
std::pair<NodeId, NodeId> biased_conv(const Graph& g, NodeId id, const NodeMap<int>& uses) {
  const GraphNode& add = g.node(id);
  if (add.op != OpId::add) return {};
  for (size_t side = 0; side < 2; ++side) {
    const NodeId conv = add.inputs[side];
    const NodeId bias = add.inputs[1 - side];
    const TensorMeta& c = g.node(conv).meta;
    const TensorMeta& b = g.node(bias).meta;
    if (g.node(conv).op == OpId::conv2d && uses[conv] == 1 && add.meta == c && b.dtype == c.dtype &&
        b.shape == Shape{c.shape[3]} && c.shape[3] >= 0)
      return {conv, bias};
  }
  return {};
}

}  // namespace

Graph fuse_conv_bias_activation(const Graph& graph) {
  // Nodes that earlier passes bypassed would still count as uses.
  Graph g = eliminate_dead_code(graph);
  const NodeMap<int> uses = use_counts(g);
  NodeMap<NodeId> sole_user(g.nodes.size());
  for (const NodeId id : g.nodes.ids())
    for (const NodeId in : g.nodes[id].inputs)
      if (uses[in] == 1) sole_user[in] = id;
  const auto has_kernel = [](const GraphNode& n) {
    return op_def(OpId::conv2d_bias_activation).kernels[static_cast<size_t>(n.meta.device.type)] !=
           nullptr;
  };
  for (const NodeId id : g.nodes.ids()) {
    const auto [conv, bias] = biased_conv(g, id, uses);
    if (!conv.valid() || !has_kernel(g.nodes[id])) continue;
    // The relu joins when it is the add's only user; the node that becomes the fused op is the
    // last of the chain, so every user of the chain's value reads it unchanged.
    const NodeId user = sole_user[id];
    const bool relu = user.valid() && g.node(user).op == OpId::relu;
    GraphNode& fused = g.nodes[relu ? user : id];
    const GraphNode& c = g.node(conv);
    Attrs attrs = c.attrs;
    attrs.set(attr::relu, relu);
    fused = GraphNode{OpId::conv2d_bias_activation,
                      std::move(attrs),
                      {c.inputs[0], c.inputs[1], bias},
                      fused.meta,
                      nullptr};
  }
  return g;
}

}  // namespace kiln::engine
