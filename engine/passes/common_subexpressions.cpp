// Common-subexpression elimination: a node that computes what an earlier node computes (same op,
// attrs, inputs and payload, or an equal small constant) is replaced by the earlier one.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "kiln/engine/passes/passes.h"

namespace kiln::engine {
namespace {

// Captured constants are compared by value only when small: each comparison may copy them to
// the host, and large equal constants are rare.
constexpr int64_t kMaxComparedConstantElements = 64;

bool equal_small_constants(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape() || a.device() != b.device() ||
      a.numel() > kMaxComparedConstantElements)
    return false;
  const Tensor host_a = a.to(Device::cpu()), host_b = b.to(Device::cpu());
  // Bytes, not values: 0.0 and -0.0 differ, and a NaN constant equals itself.
  return std::memcmp(host_a.raw_data(), host_b.raw_data(), host_a.nbytes()) == 0;
}

bool computes_same(const Graph& g, NodeId a, NodeId b) {
  const GraphNode& x = g.nodes[a];
  const GraphNode& y = g.nodes[b];
  // Placeholders are distinct arguments even when their values happen to be equal.
  if (x.op != y.op || x.op == OpId::placeholder) return false;
  if (x.op == OpId::constant && x.payload != y.payload)
    return equal_small_constants(g.constant(a).value, g.constant(b).value);
  // Equal payload pointers: the same variable for read_variable nodes.
  return x.attrs == y.attrs && x.inputs == y.inputs && x.payload == y.payload;
}

size_t node_hash(const GraphNode& n) {
  size_t h = static_cast<size_t>(n.op);
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(n.attrs.hash());
  for (const NodeId in : n.inputs) mix(in.index());
  return h;
}

}  // namespace

Graph eliminate_common_subexpressions(const Graph& graph) {
  Graph g = graph;
  NodeMap<NodeId> replacement = identity_replacement(g);
  std::unordered_multimap<size_t, NodeId> earlier;  // node hash -> nodes kept so far
  for (const NodeId id : g.nodes.ids()) {
    // Inputs first: nodes over merged inputs then hash and compare equal.
    for (NodeId& in : g.nodes[id].inputs) in = replacement[in];
    const size_t h = node_hash(g.nodes[id]);
    const auto [begin, end] = earlier.equal_range(h);
    const auto same =
        std::find_if(begin, end, [&](const auto& e) { return computes_same(g, e.second, id); });
    if (same != end)
      replacement[id] = same->second;
    else
      earlier.emplace(h, id);
  }
  replace_uses(g, replacement);
  return g;
}

}  // namespace kiln::engine
