#pragma once
// Payloads of the control-flow nodes: their subgraphs and how the node's inputs split between
// them. Inputs of a cond node: pred, operands, then-branch captures, else-branch captures.
// Inputs of a while_loop node: loop variables, condition captures, body captures. Each subgraph
// takes its operands (or loop variables) then its own captures as placeholders, in that order.
#include <memory>
#include <string>

#include "kiln/engine/graph/graph.h"

namespace kiln::engine {

struct CondPayload : NodePayload {
  std::shared_ptr<const Graph> then_graph;
  std::shared_ptr<const Graph> else_graph;
  size_t num_operands = 0;
  size_t then_captures = 0;
  size_t else_captures = 0;
  std::string describe() const override;
};

struct WhileLoopPayload : NodePayload {
  std::shared_ptr<const Graph> cond_graph;  // one boolean scalar output
  std::shared_ptr<const Graph> body_graph;  // the next loop variables
  size_t num_vars = 0;
  size_t cond_captures = 0;
  size_t body_captures = 0;
  std::string describe() const override;
};

}  // namespace kiln::engine
