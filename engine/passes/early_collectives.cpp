// Early collectives: a node that only feeds all_reduce_starts (and each start itself) is keyed to
// the position of its latest input instead of its own, and the nodes are stably sorted by key.
// A traced step records the gradient buckets after the whole backward pass; sorted so, each
// bucket's reduction starts as soon as its last gradient exists, and the backward nodes after it
// run while the ranks communicate. Every edge still points forward: a node's key is never
// below its inputs' keys, and ties keep the original order.
#include <algorithm>
#include <numeric>

#include "kiln/engine/graph/op_traits.h"
#include "kiln/engine/passes/passes.h"

namespace kiln::engine {
namespace {

// Whether each node's value goes only into collective starts (directly or through other such
// nodes), and so may run as early as its inputs allow.
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
    if (Graph::is_boundary(n.op) || is_collective(n.op) || escapes[id] || users[id].empty())
      continue;
    feeds[id] = std::all_of(users[id].begin(), users[id].end(), [&](NodeId u) { return feeds[u]; });
  }
  return feeds;
}

}  // namespace

Graph issue_collectives_early(const Graph& g) {
  const NodeMap<bool> feeds = feeds_only_collectives(g);
  if (std::none_of(feeds.begin(), feeds.end(), [](bool f) { return f; })) return g;
  NodeMap<size_t> key(g.nodes.size());
  for (const NodeId id : g.nodes.ids()) {
    const GraphNode& n = g.nodes[id];
    key[id] = id.index();
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
