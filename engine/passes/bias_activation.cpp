// Folds a product's bias add, and the relu after it, into the product: Conv2D and Dense with a
// bias and activation="relu" trace conv2d or matmul, add and relu, and the two elementwise ops
// cost two more passes over the product's output (one after elementwise fusion) that oneDNN's
// epilogue does as it stores each block. Runs after differentiation, on the forward ops only: the
// backward reads the relu's output, which the fused node still produces, and never the
// intermediate values it drops.
#include <optional>

#include "kiln/engine/passes/passes.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::engine {
namespace {

// The fused op for a product node whose last output dim is what a bias covers: a convolution
// (NHWC, per output channel) or a Dense layer's matmul (untransposed, a rank-2 kernel, per output
// column). std::nullopt for any other node.
std::optional<OpId> fused_op_of(const Graph& g, const GraphNode& n) {
  if (n.op == OpId::conv2d) return OpId::conv2d_bias_activation;
  if (n.op == OpId::matmul && !n.attrs.get(attr::transpose_a) && !n.attrs.get(attr::transpose_b) &&
      g.node(n.inputs[1]).meta.shape.rank() == 2)
    return OpId::matmul_bias_activation;
  return std::nullopt;
}

struct BiasedProduct {
  NodeId product, bias;
  OpId fused;
};

// For add(product, b) or add(b, product) with b one value per output column and the product's
// value used only by the add: the product, b and the fused op. Nothing otherwise.
std::optional<BiasedProduct> biased_product(const Graph& g, NodeId id, const NodeMap<int>& uses) {
  const GraphNode& add = g.node(id);
  if (add.op != OpId::add) return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    const NodeId product = add.inputs[side];
    const NodeId bias = add.inputs[1 - side];
    const std::optional<OpId> fused = fused_op_of(g, g.node(product));
    const TensorMeta& p = g.node(product).meta;
    const TensorMeta& b = g.node(bias).meta;
    if (fused && uses[product] == 1 && add.meta == p && b.dtype == p.dtype &&
        b.shape == Shape{p.shape.dim(-1)} && p.shape.dim(-1) >= 0)
      return BiasedProduct{product, bias, *fused};
  }
  return std::nullopt;
}

}  // namespace

Graph fuse_bias_activation(const Graph& graph) {
  // Nodes that earlier passes bypassed would still count as uses.
  Graph g = eliminate_dead_code(graph);
  const NodeMap<int> uses = use_counts(g);
  NodeMap<NodeId> sole_user(g.nodes.size());
  for (const NodeId id : g.nodes.ids())
    for (const NodeId in : g.nodes[id].inputs)
      if (uses[in] == 1) sole_user[in] = id;
  const auto has_kernel = [](OpId op, const GraphNode& n) {
    return op_def(op).kernels[static_cast<size_t>(n.meta.device.type)] != nullptr;
  };
  for (const NodeId id : g.nodes.ids()) {
    const std::optional<BiasedProduct> biased = biased_product(g, id, uses);
    if (!biased || !has_kernel(biased->fused, g.nodes[id])) continue;
    // The relu joins when it is the add's only user; the node that becomes the fused op is the
    // last of the chain, so every user of the chain's value reads it unchanged.
    const NodeId user = sole_user[id];
    const bool relu = user.valid() && g.node(user).op == OpId::relu;
    GraphNode& fused = g.nodes[relu ? user : id];
    const GraphNode& p = g.node(biased->product);
    Attrs attrs = p.attrs;
    attrs.set(attr::relu, relu);
    fused = GraphNode{biased->fused,
                      std::move(attrs),
                      {p.inputs[0], p.inputs[1], biased->bias},
                      fused.meta,
                      nullptr};
  }
  return g;
}

}  // namespace kiln::engine
