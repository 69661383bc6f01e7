#pragma once
// Builds an engine graph node by node for pass tests; op metas are inferred from the inputs'
// metas like tracing does.
#include <memory>
#include <utility>
#include <vector>

#include "kiln/engine/graph/graph.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln::engine::testing {

class GraphBuilder {
 public:
  NodeId input(const Shape& shape, DType dtype = DType::f32) {
    const int64_t index = graph_.num_inputs++;
    return add({OpId::placeholder, {{"index", index}}, {}, {dtype, shape, {}}, nullptr});
  }
  NodeId constant(const Tensor& value) {
    return add({OpId::constant, {}, {}, value.meta(), std::make_shared<ConstantPayload>(value)});
  }
  NodeId variable(const Variable& v) {
    return add({OpId::read_variable, {}, {}, v.meta(), v.state()});
  }
  NodeId op(OpId op, std::vector<NodeId> inputs, Attrs attrs = {}) {
    std::vector<TensorMeta> metas;
    for (const NodeId in : inputs) metas.push_back(graph_.node(in).meta);
    const TensorMeta meta = infer_meta(op, metas, attrs);
    return add({op, std::move(attrs), std::move(inputs), meta, nullptr});
  }
  // Output `index` (>= 1) of a node of an op with several outputs.
  NodeId output(NodeId node, int64_t index) {
    const TensorMeta meta = graph_.node(node).meta;
    return add({OpId::tuple_get, {{"index", index}}, {node}, meta, nullptr});
  }
  void assign(const Variable& v, NodeId value) { graph_.assignments.push_back({v.state(), value}); }
  Graph finish(std::vector<NodeId> outputs) {
    graph_.outputs = std::move(outputs);
    return std::move(graph_);
  }

 private:
  NodeId add(GraphNode node) { return graph_.nodes.push_back(std::move(node)); }

  Graph graph_;
};

}  // namespace kiln::engine::testing
