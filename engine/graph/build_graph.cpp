#include "kiln/engine/graph/build_graph.h"

#include <unordered_map>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln::engine {
namespace {

class Builder {
 public:
  Builder(const TraceRecord& record, const std::string& name, std::vector<Tensor>* captures)
      : record_(record), name_(name), captures_(captures) {}

  Graph build() {
    graph_.num_inputs = static_cast<int>(record_.inputs.size());
    // Every placeholder is kept, used or not: callers bind arguments by position.
    for (const Tensor& in : record_.inputs) add(in);
    for (const Tensor& out : record_.outputs) graph_.outputs.push_back(add(out));
    for (const auto& [variable, value] : record_.assignments)
      graph_.assignments.push_back({variable, add(value)});
    // Captured values were numbered as they were met; placeholders keep their own index.
    graph_.num_inputs += static_cast<int>(captured_);
    return std::move(graph_);
  }

 private:
  // Identity of a value: its node for symbolic tensors (detached handles share it), its
  // TensorImpl for captured concrete tensors.
  static const void* key(const Tensor& t) {
    return t.is_symbolic() ? static_cast<const void*>(t.node().get())
                           : static_cast<const void*>(t.impl());
  }

  bool is_foreign(const Tensor& t) const {
    return t.is_symbolic() && t.node() != nullptr && t.node()->frame != record_.frame;
  }

  const Node* checked_node(const Tensor& t) const {
    const Node* node = t.node().get();
    KILN_CHECK(node != nullptr && node->frame == record_.frame, "function '", name_,
               "': traced code used a symbolic tensor ", describe(t.meta()),
               " that belongs to another trace; keep no tensors created while tracing beyond "
               "the traced call");
    return node;
  }

  // Post-order over the recorded nodes without recursion (traced graphs can be very deep).
  NodeId add(const Tensor& root) {
    if (auto it = ids_.find(key(root)); it != ids_.end()) return it->second;
    std::vector<std::pair<Tensor, size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [t, next] = stack.back();
      if (t.is_symbolic() && !(captures_ != nullptr && is_foreign(t))) {
        const Node* node = checked_node(t);
        if (next < node->inputs.size()) {
          const Tensor& in = node->inputs[next++];
          if (!ids_.count(key(in))) stack.emplace_back(in, 0);
          continue;
        }
      }
      emit(t);
      stack.pop_back();
    }
    return ids_.at(key(root));
  }

  void emit(const Tensor& t) {
    if (ids_.count(key(t))) return;
    GraphNode n;
    n.meta = t.meta();
    if (captures_ != nullptr && is_foreign(t)) {
      n.op = OpId::placeholder;
      n.attrs = Attrs{{attr::index, static_cast<int64_t>(record_.inputs.size() + captured_++)}};
      captures_->push_back(t);
    } else if (!t.is_symbolic()) {
      n.op = OpId::constant;
      n.payload = std::make_shared<ConstantPayload>(t.detach());
    } else {
      const Node& node = *t.node();
      n.op = node.op;
      n.attrs = node.attrs;
      n.payload = node.payload;
      for (const Tensor& in : node.inputs) n.inputs.push_back(ids_.at(key(in)));
    }
    ids_.emplace(key(t), graph_.nodes.push_back(std::move(n)));
  }

  const TraceRecord& record_;
  const std::string& name_;
  std::vector<Tensor>* captures_;
  size_t captured_ = 0;
  Graph graph_;
  std::unordered_map<const void*, NodeId> ids_;
};

}  // namespace

std::vector<Tensor> make_placeholders(const std::vector<TensorMeta>& metas, uint32_t frame) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < metas.size(); ++i) {
    Tensor t = Tensor::symbolic(metas[i]);
    t.impl()->node = std::make_shared<Node>(
        Node{OpId::placeholder, Attrs{{attr::index, static_cast<int64_t>(i)}}, {}, nullptr, frame});
    out.push_back(std::move(t));
  }
  return out;
}

Graph build_graph(const TraceRecord& record, const std::string& function_name,
                  std::vector<Tensor>* captures) {
  return Builder(record, function_name, captures).build();
}

}  // namespace kiln::engine
