#pragma once
// The engine's graph: a flat, topologically ordered list of nodes, each defining one value
// (node i defines %i). Built once per trace from the recorded framework nodes; the passes rewrite
// it; the executor plans it per concrete input shape.
#include <memory>
#include <string>
#include <vector>

#include "kiln/engine/graph/node_id.h"
#include "kiln/framework/graph/node.h"
#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/ops/op_list.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln::engine {

struct GraphNode {
  OpId op;
  Attrs attrs;
  std::vector<NodeId> inputs;  // earlier nodes
  TensorMeta meta;             // as traced: dims may be unknown
  // placeholder: none (attr "index"); constant: ConstantPayload; read_variable: VariableState.
  std::shared_ptr<const NodePayload> payload;
};

// A value captured into the graph while tracing (a concrete tensor used by traced code).
struct ConstantPayload : NodePayload {
  Tensor value;
  explicit ConstantPayload(Tensor v) : value(std::move(v)) {}
  std::string describe() const override;  // small values inline, larger ones by shape
};

// The variable takes the value of node `value` after the graph has run.
struct Assignment {
  std::shared_ptr<VariableState> variable;
  NodeId value;
};

struct Graph {
  NodeMap<GraphNode> nodes;
  std::vector<NodeId> outputs;
  std::vector<Assignment> assignments;
  int num_inputs = 0;  // placeholders carry attr "index" in [0, num_inputs)

  // Placeholders, variable reads and constants bind values instead of computing them.
  static bool is_boundary(OpId op) {
    return op == OpId::placeholder || op == OpId::constant || op == OpId::read_variable;
  }
  // Node `id` (the value %id), read-only.
  const GraphNode& node(NodeId id) const { return nodes[id]; }
  const ConstantPayload& constant(NodeId id) const;
  // Whether node `id` is a constant whose every element is exactly `value`.
  bool is_constant_of(NodeId id, double value) const;
  std::shared_ptr<VariableState> variable(NodeId id) const;
};

// Builds a node list like `%3: float32[?, 1] = matmul(%0, %1) {transpose_a=false}`; passes'
// tests compare these texts before and after.
std::string to_text(const Graph& graph);
// Graphviz: nodes labelled with op, attrs and meta; edges follow data flow.
std::string to_dot(const Graph& graph, const std::string& name = "graph");

// Number of uses of every node (inputs, outputs and assignments).
NodeMap<int> use_counts(const Graph& graph);

// Keeps the nodes with keep[i] (their inputs must be kept too) and renumbers all references.
Graph compact(const Graph& graph, const NodeMap<bool>& keep);

// Every use of node i is redirected to replacement[i] (replacement[i] == i for no change);
// chains resolve. Nodes left unused stay until dead-code elimination.
void replace_uses(Graph& graph, const NodeMap<NodeId>& replacement);

// replacement for replace_uses: every node kept.
NodeMap<NodeId> identity_replacement(const Graph& graph);

}  // namespace kiln::engine
