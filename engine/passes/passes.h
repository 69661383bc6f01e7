#pragma once
// Graph-to-graph passes. Each is a pure function (graph in, graph out) with its own test that
// compares printed graphs before and after; PassOptions switches each off for debugging.
#include "engine/graph/graph.h"

namespace kiln::engine {

struct PassOptions {
  bool dead_code = true;
};

Graph eliminate_dead_code(const Graph& graph);

// The pipeline kiln::function runs on every new trace.
Graph optimize(Graph graph, const PassOptions& options);

}  // namespace kiln::engine
