#pragma once
// Turns what a trace recorded (framework nodes hanging off symbolic tensors) into a Graph.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/graph/graph.h"

namespace kiln::engine {

struct TraceRecord {
  uint32_t frame = 0;           // nodes of this frame belong to the graph
  std::vector<Tensor> inputs;   // the placeholders, in argument order
  std::vector<Tensor> outputs;  // symbolic (computed) or concrete (captured) results
  std::vector<std::pair<std::shared_ptr<VariableState>, Tensor>> assignments;
};

// Walks back from outputs and assignments. Concrete tensors become constants; a symbolic tensor
// recorded by another trace is an error naming `function_name`.
Graph build_graph(const TraceRecord& record, const std::string& function_name);

}  // namespace kiln::engine
