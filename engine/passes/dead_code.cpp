#include "kiln/engine/passes/passes.h"

namespace kiln::engine {

// Keeps what outputs and assignments need, and every placeholder (arguments bind by position).
Graph eliminate_dead_code(const Graph& g) {
  NodeMap<bool> keep(g.nodes.size(), false);
  for (const NodeId o : g.outputs) keep[o] = true;
  for (const Assignment& a : g.assignments) keep[a.value] = true;
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const NodeId id(i);
    if (g.nodes[id].op == OpId::placeholder) keep[id] = true;
    if (!keep[id]) continue;
    for (const NodeId in : g.nodes[id].inputs) keep[in] = true;
  }
  return compact(g, keep);
}

}  // namespace kiln::engine
