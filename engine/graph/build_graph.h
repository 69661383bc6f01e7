#pragma once
// Turns what a trace recorded (framework nodes hanging off symbolic tensors) into a Graph.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/engine/graph/graph.h"

namespace kiln::engine {

struct TraceRecord {
  uint32_t frame = 0;           // nodes of this frame belong to the graph
  std::vector<Tensor> inputs;   // the placeholders, in argument order
  std::vector<Tensor> outputs;  // symbolic (computed) or concrete (captured) results
  std::vector<std::pair<std::shared_ptr<VariableState>, Tensor>> assignments;
};

// Symbolic tensors standing for a trace's arguments, recorded in `frame`.
std::vector<Tensor> make_placeholders(const std::vector<TensorMeta>& metas, uint32_t frame);

// Walks back from outputs and assignments. Concrete tensors become constants. A symbolic tensor
// recorded by another trace is an error naming `function_name`, unless `captures` is given (a
// subgraph of control flow): then it becomes one more placeholder, after the record's inputs,
// and is appended to *captures for the enclosing graph to pass in.
Graph build_graph(const TraceRecord& record, const std::string& function_name,
                  std::vector<Tensor>* captures = nullptr);

}  // namespace kiln::engine
