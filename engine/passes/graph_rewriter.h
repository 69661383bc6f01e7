#pragma once
// Copies a graph node by node into a new one, for passes that replace a node with several new
// ones: the new nodes are emitted in order, so the result stays topologically sorted, and every
// old id maps to the new node that defines its value.
#include <vector>

#include "kiln/engine/graph/graph.h"

namespace kiln::engine {

class GraphRewriter {
 public:
  explicit GraphRewriter(const Graph& source);

  // Appends a node over new ids; its meta is inferred from theirs.
  NodeId emit(OpId op, std::vector<NodeId> inputs, Attrs attrs = {});
  // Appends tuple_get(node, index): output `index` of a new node of an op with several.
  NodeId emit_output(NodeId node, int index);
  // Appends a constant node holding `value`.
  NodeId emit_constant(const Tensor& value);
  // Appends old node `id` unchanged, its inputs mapped.
  void copy(NodeId id);
  // Old node `id`'s value is now the new node `value`.
  void define(NodeId id, NodeId value) { new_id_[id] = value; }
  NodeId mapped(NodeId id) const { return new_id_[id]; }
  const GraphNode& node(NodeId new_id) const { return out_.node(new_id); }
  // The outputs and assignments, mapped.
  Graph finish();

 private:
  const Graph& source_;
  Graph out_;
  NodeMap<NodeId> new_id_;
};

}  // namespace kiln::engine
