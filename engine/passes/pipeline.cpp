#include "engine/passes/passes.h"

namespace kiln::engine {

Graph optimize(Graph graph, const PassOptions& options) {
  if (options.dead_code) graph = eliminate_dead_code(graph);
  return graph;
}

}  // namespace kiln::engine
