#include "kiln/engine/passes/passes.h"

namespace kiln::engine {

// Keeps what outputs and assignments need, and every placeholder (arguments bind by position).
Graph eliminate_dead_code(const Graph& g) {
  std::vector<bool> keep(g.nodes.size(), false);
  for (int o : g.outputs) keep[static_cast<size_t>(o)] = true;
  for (const Assignment& a : g.assignments) keep[static_cast<size_t>(a.value)] = true;
  for (size_t i = g.nodes.size(); i-- > 0;) {
    if (g.nodes[i].op == OpId::placeholder) keep[i] = true;
    if (!keep[i]) continue;
    for (int in : g.nodes[i].inputs) keep[static_cast<size_t>(in)] = true;
  }
  return compact(g, keep);
}

}  // namespace kiln::engine
