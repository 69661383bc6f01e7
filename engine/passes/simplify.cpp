// Algebraic simplification: rewrites that drop work without changing any value (x*1, x+0, x-0,
// x/1, neg(neg(x)), identity(x), a cast to x's own dtype, a reshape to x's own shape) and that
// merge chains of transposes or reshapes into one node.
#include <algorithm>

#include "kiln/engine/passes/passes.h"

namespace kiln::engine {
namespace {

// x for `x op c` or `c op x` where c is op's identity element on that side; none otherwise.
NodeId identity_element_operand(const Graph& g, const GraphNode& n) {
  const NodeId a = n.inputs[0], b = n.inputs[1];
  switch (n.op) {
    case OpId::add:
      if (g.is_constant_of(b, 0)) return a;
      return g.is_constant_of(a, 0) ? b : NodeId();
    case OpId::mul:
      if (g.is_constant_of(b, 1)) return a;
      return g.is_constant_of(a, 1) ? b : NodeId();
    case OpId::sub:
      return g.is_constant_of(b, 0) ? a : NodeId();
    case OpId::div:
      return g.is_constant_of(b, 1) ? a : NodeId();
    default:
      return NodeId();
  }
}

bool is_identity_perm(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// Output axis i of transpose(transpose(x, inner), outer) is axis inner[outer[i]] of x.
std::vector<int64_t> compose_perms(const std::vector<int64_t>& inner,
                                   const std::vector<int64_t>& outer) {
  std::vector<int64_t> perm;
  for (int64_t o : outer) perm.push_back(inner[static_cast<size_t>(o)]);
  return perm;
}

// The node that may stand for node i (i itself for none). Chains are merged by rewriting node i
// in place to read the chain's start; the skipped nodes are left for dead-code elimination.
NodeId simplified(Graph& g, NodeId i) {
  GraphNode& n = g.nodes[i];
  switch (n.op) {
    case OpId::add:
    case OpId::mul:
    case OpId::sub:
    case OpId::div: {
      const NodeId x = identity_element_operand(g, n);
      return x.valid() ? x : i;
    }
    case OpId::neg: {
      const GraphNode& inner = g.node(n.inputs[0]);
      return inner.op == OpId::neg ? inner.inputs[0] : i;
    }
    case OpId::identity:
      return n.inputs[0];
    case OpId::cast:
      return g.node(n.inputs[0]).meta.dtype == n.attrs.get(attr::dtype) ? n.inputs[0] : i;
    case OpId::transpose: {
      const GraphNode& inner = g.node(n.inputs[0]);
      if (inner.op == OpId::transpose) {
        std::vector<int64_t> perm =
            compose_perms(inner.attrs.get(attr::perm), n.attrs.get(attr::perm));
        n.inputs = {inner.inputs[0]};
        n.attrs = Attrs{{attr::perm, std::move(perm)}};
      }
      return is_identity_perm(n.attrs.get(attr::perm)) ? n.inputs[0] : i;
    }
    case OpId::reshape: {
      // The outer target shape alone decides the result: both reshapes keep the element count.
      const GraphNode& inner = g.node(n.inputs[0]);
      if (inner.op == OpId::reshape) n.inputs = {inner.inputs[0]};
      // A reshape to its input's own meta changes nothing: it has at most one unknown dim (from
      // a -1), which the equal element count then fixes to the input's.
      return n.inputs[0];
    }
    case OpId::reshape_like: {
      // The same holds for a reshape to another value's runtime shape (the gradient of a
      // broadcasting add reshapes to its operand's shape even where nothing was broadcast):
      // dropping it also frees that operand from being kept for its shape alone.
      const auto& dims = n.meta.shape.dims();
      return std::count(dims.begin(), dims.end(), Shape::kUnknownDim) <= 1 ? n.inputs[0] : i;
    }
    default:
      return i;
  }
}

}  // namespace

Graph simplify(const Graph& graph) {
  Graph g = graph;
  NodeMap<NodeId> replacement = identity_replacement(g);
  for (const NodeId id : g.nodes.ids()) {
    // Inputs first, so a rule sees through what was already simplified (neg(identity(neg(x)))).
    for (NodeId& in : g.nodes[id].inputs) in = replacement[in];
    const NodeId r = simplified(g, id);
    // The meta check is what rules out dropping a broadcast (x[3] * ones[2, 3]) or a reshape
    // that changes the shape.
    if (g.node(r).meta == g.nodes[id].meta) replacement[id] = r;
  }
  replace_uses(g, replacement);
  return g;
}

}  // namespace kiln::engine
