// Early collectives: each all_reduce_start, and the nodes that only pack values for it (a
// gradient bucket's flattening, concatenation and elementwise casts or masks), is keyed to the
// position of its latest input instead of its own; every node that needs a reduced gradient (the
// waits of the gradient buckets and what reads them: the optimizer's updates) is keyed after all
// the others; the nodes are stably sorted by key. However a trace ordered them, each bucket's
// reduction then starts as soon as its last gradient exists and is waited for only once the rest of
// backward (and the metrics) has run, so the ranks communicate meanwhile. Every edge still points
// forward: a node's key is never below its inputs' keys, nothing that needs no reduced gradient
// reads one that does, and ties keep the original order.
#include <algorithm>
#include <numeric>

#include "kiln/engine/graph/op_traits.h"
#include "kiln/engine/passes/passes.h"

namespace kiln::engine {
namespace {

// Ops that repack a gradient for its bucket (flatten, concatenate, cast, mask).
bool packs(OpId op) {
  return is_alias(op) || op == OpId::concat || is_elementwise(op);
}

// Whether each node is a collective start or packs values only for starts (directly or through
// other packing nodes), and so may run as early as its inputs allow.
NodeMap<bool> feeds_only_collectives(const Graph& g) {
  NodeMap<std::vector<NodeId>> users(g.nodes.size());
  for (const NodeId id : g.nodes.ids())
    for (const NodeId in : g.nodes[id].inputs) users[in].push_back(id);
  NodeMap<bool> escapes(g.nodes.size(), false);  // read by the graph's results or a variable
  for (const NodeId o : g.outputs) escapes[o] = true;
  for (const Assignment& a : g.assignments) escapes[a.value] = true;
  NodeMap<bool> feeds(g.nodes.size(), false);
  for (size_t k = g.nodes.size(); k-- > 0;) {
    const NodeId id(k);
    const GraphNode& n = g.nodes[id];
    if (n.op == OpId::all_reduce_start) {
      feeds[id] = true;
      continue;
    }
    if (!packs(n.op) || escapes[id] || users[id].empty()) continue;
    feeds[id] = std::all_of(users[id].begin(), users[id].end(), [&](NodeId u) { return feeds[u]; });
  }
  return feeds;
}

// Whether each node needs a reduced gradient: a gradient bucket's wait (bucket >= 0; the
// forward pass's reductions are needed where they are) or a node reading one.
NodeMap<bool> needs_reduced_gradients(const Graph& g) {
  NodeMap<bool> needs(g.nodes.size(), false);
  for (const NodeId id : g.nodes.ids()) {
    const GraphNode& n = g.nodes[id];
    needs[id] = (n.op == OpId::all_reduce_wait && n.attrs.get(attr::bucket) >= 0) ||
                std::any_of(n.inputs.begin(), n.inputs.end(), [&](NodeId in) { return needs[in]; });
  }
  return needs;
}

}  // namespace

Graph issue_collectives_early(const Graph& g) {
  const NodeMap<bool> feeds = feeds_only_collectives(g);
  if (std::none_of(feeds.begin(), feeds.end(), [](bool f) { return f; })) return g;
  const NodeMap<bool> late = needs_reduced_gradients(g);
  const size_t size = g.nodes.size();
  NodeMap<size_t> key(size);
  for (const NodeId id : g.nodes.ids()) {
    const GraphNode& n = g.nodes[id];
    key[id] = late[id] ? size + id.index() : id.index();
    if (!feeds[id] || n.inputs.empty()) continue;
    key[id] = 0;
    for (const NodeId in : n.inputs) key[id] = std::max(key[id], key[in]);
  }
  std::vector<size_t> order(g.nodes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key[NodeId(a)] < key[NodeId(b)]; });

  NodeMap<NodeId> new_id(g.nodes.size());
  Graph out;
  out.num_inputs = g.num_inputs;
  for (const size_t old : order) {
    GraphNode n = g.nodes[NodeId(old)];
    for (NodeId& in : n.inputs) in = new_id[in];
    new_id[NodeId(old)] = out.nodes.push_back(std::move(n));
  }
  for (const NodeId o : g.outputs) out.outputs.push_back(new_id[o]);
  for (const Assignment& a : g.assignments)
    out.assignments.push_back({a.variable, new_id[a.value]});
  return out;
}

}  // namespace kiln::engine
