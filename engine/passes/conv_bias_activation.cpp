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
// convolution's value used only by the add: the conv2d's id and b's. {-1, -1} otherwise.
std::pair<int, int> biased_conv(const Graph& g, int id, const std::vector<int>& uses) {
  const GraphNode& add = g.node(id);
  if (add.op != OpId::add) return {-1, -1};
  for (int side = 0; side < 2; ++side) {
    const int conv = add.inputs[static_cast<size_t>(side)];
    const int bias = add.inputs[static_cast<size_t>(1 - side)];
    const TensorMeta& c = g.node(conv).meta;
    const TensorMeta& b = g.node(bias).meta;
    if (g.node(conv).op == OpId::conv2d && uses[static_cast<size_t>(conv)] == 1 && add.meta == c &&
        b.dtype == c.dtype && b.shape == Shape{c.shape[3]} && c.shape[3] >= 0)
      return {conv, bias};
  }
  return {-1, -1};
}

}  // namespace

Graph fuse_conv_bias_activation(const Graph& graph) {
  // Nodes that earlier passes bypassed would still count as uses.
  Graph g = eliminate_dead_code(graph);
  const std::vector<int> uses = use_counts(g);
  std::vector<int> sole_user(g.nodes.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int in : g.nodes[i].inputs)
      if (uses[static_cast<size_t>(in)] == 1)
        sole_user[static_cast<size_t>(in)] = static_cast<int>(i);
  const auto has_kernel = [](const GraphNode& n) {
    return op_def(OpId::conv2d_bias_activation).kernels[static_cast<size_t>(n.meta.device.type)] !=
           nullptr;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto [conv, bias] = biased_conv(g, static_cast<int>(i), uses);
    if (conv < 0 || !has_kernel(g.nodes[i])) continue;
    // The relu joins when it is the add's only user; the node that becomes the fused op is the
    // last of the chain, so every user of the chain's value reads it unchanged.
    const int user = sole_user[i];
    const bool relu = user >= 0 && g.node(user).op == OpId::relu;
    GraphNode& fused = g.nodes[static_cast<size_t>(relu ? user : static_cast<int>(i))];
    const GraphNode& c = g.node(conv);
    Attrs attrs = c.attrs;
    attrs.set("relu", relu);
    fused = GraphNode{OpId::conv2d_bias_activation,
                      std::move(attrs),
                      {c.inputs[0], c.inputs[1], bias},
                      fused.meta,
                      nullptr};
  }
  return g;
}

}  // namespace kiln::engine
