#include "engine/graph/build_graph.h"

#include <unordered_map>

#include "framework/core/error.h"
#include "framework/ops/dispatch.h"

namespace kiln::engine {
namespace {

class Builder {
 public:
  Builder(const TraceRecord& record, const std::string& name) : record_(record), name_(name) {}

  Graph build() {
    graph_.num_inputs = static_cast<int>(record_.inputs.size());
    // Every placeholder is kept, used or not: callers bind arguments by position.
    for (const Tensor& in : record_.inputs) add(in);
    for (const Tensor& out : record_.outputs) graph_.outputs.push_back(add(out));
    for (const auto& [variable, value] : record_.assignments)
      graph_.assignments.push_back({variable, add(value)});
    return std::move(graph_);
  }

 private:
  // Identity of a value: its node for symbolic tensors (detached handles share it), its
  // TensorImpl for captured concrete tensors.
  static const void* key(const Tensor& t) {
    return t.is_symbolic() ? static_cast<const void*>(t.node().get())
                           : static_cast<const void*>(t.impl());
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
  int add(const Tensor& root) {
    if (auto it = ids_.find(key(root)); it != ids_.end()) return it->second;
    std::vector<std::pair<Tensor, size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [t, next] = stack.back();
      if (t.is_symbolic()) {
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
    if (!t.is_symbolic()) {
      n.op = OpId::constant;
      n.payload = std::make_shared<ConstantPayload>(t.detach());
    } else {
      const Node& node = *t.node();
      n.op = node.op;
      n.attrs = node.attrs;
      n.payload = node.payload;
      for (const Tensor& in : node.inputs) n.inputs.push_back(ids_.at(key(in)));
    }
    ids_.emplace(key(t), static_cast<int>(graph_.nodes.size()));
    graph_.nodes.push_back(std::move(n));
  }

  const TraceRecord& record_;
  const std::string& name_;
  Graph graph_;
  std::unordered_map<const void*, int> ids_;
};

}  // namespace

Graph build_graph(const TraceRecord& record, const std::string& function_name) {
  return Builder(record, function_name).build();
}

}  // namespace kiln::engine
