#include "kiln/engine/passes/graph_rewriter.h"

#include <memory>

#include "kiln/framework/ops/dispatch.h"

namespace kiln::engine {

GraphRewriter::GraphRewriter(const Graph& source)
    : source_(source), new_id_(source.nodes.size(), -1) {
  out_.num_inputs = source.num_inputs;
}

int GraphRewriter::emit(OpId op, std::vector<int> inputs, Attrs attrs) {
  std::vector<TensorMeta> metas;
  for (int in : inputs) metas.push_back(out_.node(in).meta);
  const TensorMeta meta = infer_meta(op, metas, attrs);
  out_.nodes.push_back({op, std::move(attrs), std::move(inputs), meta, nullptr});
  return static_cast<int>(out_.nodes.size()) - 1;
}

int GraphRewriter::emit_output(int node, int index) {
  const GraphNode& n = out_.node(node);
  std::vector<TensorMeta> metas;
  for (int in : n.inputs) metas.push_back(out_.node(in).meta);
  const TensorMeta meta = infer_output_metas(n.op, metas, n.attrs).at(static_cast<size_t>(index));
  out_.nodes.push_back(
      {OpId::tuple_get, Attrs{{"index", static_cast<int64_t>(index)}}, {node}, meta, nullptr});
  return static_cast<int>(out_.nodes.size()) - 1;
}

int GraphRewriter::emit_constant(const Tensor& value) {
  out_.nodes.push_back(
      {OpId::constant, {}, {}, value.meta(), std::make_shared<ConstantPayload>(value)});
  return static_cast<int>(out_.nodes.size()) - 1;
}

void GraphRewriter::copy(int id) {
  GraphNode n = source_.node(id);
  for (int& in : n.inputs) in = mapped(in);
  out_.nodes.push_back(std::move(n));
  define(id, static_cast<int>(out_.nodes.size()) - 1);
}

Graph GraphRewriter::finish() {
  for (int o : source_.outputs) out_.outputs.push_back(mapped(o));
  for (const Assignment& a : source_.assignments)
    out_.assignments.push_back({a.variable, mapped(a.value)});
  return std::move(out_);
}

}  // namespace kiln::engine
