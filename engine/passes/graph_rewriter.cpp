#include "kiln/engine/passes/graph_rewriter.h"

#include <memory>

#include "kiln/framework/ops/dispatch.h"

namespace kiln::engine {

GraphRewriter::GraphRewriter(const Graph& source) : source_(source), new_id_(source.nodes.size()) {
  out_.num_inputs = source.num_inputs;
}

NodeId GraphRewriter::emit(OpId op, std::vector<NodeId> inputs, Attrs attrs) {
  std::vector<TensorMeta> metas;
  for (const NodeId in : inputs) metas.push_back(out_.node(in).meta);
  const TensorMeta meta = infer_meta(op, metas, attrs);
  return out_.nodes.push_back({op, std::move(attrs), std::move(inputs), meta, nullptr});
}

NodeId GraphRewriter::emit_output(NodeId node, int index) {
  const GraphNode& n = out_.node(node);
  std::vector<TensorMeta> metas;
  for (const NodeId in : n.inputs) metas.push_back(out_.node(in).meta);
  const TensorMeta meta = infer_output_metas(n.op, metas, n.attrs).at(static_cast<size_t>(index));
  return out_.nodes.push_back(
      {OpId::tuple_get, Attrs{{attr::index, static_cast<int64_t>(index)}}, {node}, meta, nullptr});
}

NodeId GraphRewriter::emit_constant(const Tensor& value) {
  return out_.nodes.push_back(
      {OpId::constant, {}, {}, value.meta(), std::make_shared<ConstantPayload>(value)});
}

void GraphRewriter::copy(NodeId id) {
  GraphNode n = source_.node(id);
  for (NodeId& in : n.inputs) in = mapped(in);
  define(id, out_.nodes.push_back(std::move(n)));
}

Graph GraphRewriter::finish() {
  for (const NodeId o : source_.outputs) out_.outputs.push_back(mapped(o));
  for (const Assignment& a : source_.assignments)
    out_.assignments.push_back({a.variable, mapped(a.value)});
  return std::move(out_);
}

}  // namespace kiln::engine
