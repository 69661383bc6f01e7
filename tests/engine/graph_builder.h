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
  int input(const Shape& shape, DType dtype = DType::f32) {
    const int64_t index = graph_.num_inputs++;
    return add({OpId::placeholder, {{"index", index}}, {}, {dtype, shape, {}}, nullptr});
  }
  int constant(const Tensor& value) {
    return add({OpId::constant, {}, {}, value.meta(), std::make_shared<ConstantPayload>(value)});
  }
  int variable(const Variable& v) {
    return add({OpId::read_variable, {}, {}, v.meta(), v.state()});
  }
  int op(OpId op, std::vector<int> inputs, Attrs attrs = {}) {
    std::vector<TensorMeta> metas;
    for (int in : inputs) metas.push_back(graph_.nodes[static_cast<size_t>(in)].meta);
    const TensorMeta meta = infer_meta(op, metas, attrs);
    return add({op, std::move(attrs), std::move(inputs), meta, nullptr});
  }
  // Output `index` (>= 1) of a node of an op with several outputs.
  int output(int node, int64_t index) {
    const TensorMeta meta = graph_.nodes[static_cast<size_t>(node)].meta;
    return add({OpId::tuple_get, {{"index", index}}, {node}, meta, nullptr});
  }
  void assign(const Variable& v, int value) { graph_.assignments.push_back({v.state(), value}); }
  Graph finish(std::vector<int> outputs) {
    graph_.outputs = std::move(outputs);
    return std::move(graph_);
  }

 private:
  int add(GraphNode node) {
    graph_.nodes.push_back(std::move(node));
    return static_cast<int>(graph_.nodes.size()) - 1;
  }

  Graph graph_;
};

}  // namespace kiln::engine::testing
