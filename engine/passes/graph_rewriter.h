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
  int emit(OpId op, std::vector<int> inputs, Attrs attrs = {});
  // Appends tuple_get(node, index): output `index` of a new node of an op with several.
  int emit_output(int node, int index);
  // Appends a constant node holding `value`.
  int emit_constant(const Tensor& value);
  // Appends old node `id` unchanged, its inputs mapped.
  void copy(int id);
  // Old node `id`'s value is now the new node `value`.
  void define(int id, int value) { new_id_[static_cast<size_t>(id)] = value; }
  int mapped(int id) const { return new_id_[static_cast<size_t>(id)]; }
  const GraphNode& node(int new_id) const { return out_.node(new_id); }
  // The outputs and assignments, mapped.
  Graph finish();

 private:
  const Graph& source_;
  Graph out_;
  std::vector<int> new_id_;
};

}  // namespace kiln::engine
