#include "kiln/framework/autodiff/grad.h"

#include <unordered_map>
#include <unordered_set>

#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/graph/node.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

thread_local int g_value_and_grad_depth = 0;

struct DepthGuard {
  DepthGuard() { ++g_value_and_grad_depth; }
  ~DepthGuard() { --g_value_and_grad_depth; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};

// Recorded tensors reachable from y, inputs before users, and which of them lead to a target.
struct Tape {
  std::vector<Tensor> order;
  std::unordered_set<const TensorImpl*> reaches_target;
};

Tape collect(const Tensor& y, const std::unordered_set<const TensorImpl*>& targets) {
  Tape tape;
  std::unordered_set<const TensorImpl*> visited;
  // Iterative post-order DFS: recorded graphs can be thousands of nodes deep (RNN unrolls).
  std::vector<std::pair<Tensor, size_t>> stack{{y, 0}};
  visited.insert(y.impl());
  while (!stack.empty()) {
    auto& [t, next] = stack.back();
    const Node* node = t.node().get();
    if (node != nullptr && t.requires_grad() && next < node->inputs.size()) {
      const Tensor& in = node->inputs[next++];
      if (in.requires_grad() && visited.insert(in.impl()).second) stack.emplace_back(in, 0);
      continue;
    }
    bool reaches = targets.count(t.impl()) > 0;
    if (node != nullptr && t.requires_grad())
      for (const Tensor& in : node->inputs)
        reaches = reaches || tape.reaches_target.count(in.impl());
    if (reaches) tape.reaches_target.insert(t.impl());
    tape.order.push_back(t);
    stack.pop_back();
  }
  return tape;
}

void accumulate(std::unordered_map<const TensorImpl*, Tensor>& grads, const Tensor& x,
                const Tensor& g) {
  auto [it, inserted] = grads.try_emplace(x.impl(), g);
  if (!inserted) it->second = it->second + g;
}

}  // namespace

std::vector<Tensor> gradients(const Tensor& y, const std::vector<Tensor>& xs, const Tensor& grad_y,
                              bool create_graph) {
  KILN_CHECK(y.defined(), "gradients: y is undefined");
  KILN_CHECK(is_floating(y.dtype()), "gradients: y must be floating, got ", describe(y.meta()));
  std::unordered_set<const TensorImpl*> targets;
  for (const Tensor& x : xs) targets.insert(x.impl());

  std::unordered_map<const TensorImpl*, Tensor> grads;
  if (y.requires_grad() || targets.count(y.impl())) {
    const Tape tape = collect(y, targets);
    GradModeGuard mode(create_graph);
    grads.emplace(y.impl(), grad_y.defined() ? grad_y : ops::ones_like(y));
    for (auto it = tape.order.rbegin(); it != tape.order.rend(); ++it) {
      const Tensor& t = *it;
      const Node* node = t.node().get();
      const auto g = grads.find(t.impl());
      if (node == nullptr || !t.requires_grad() || g == grads.end() ||
          !tape.reaches_target.count(t.impl()))
        continue;
      std::vector<bool> needs;
      bool any = false;
      for (const Tensor& in : node->inputs) {
        needs.push_back(in.requires_grad() && tape.reaches_target.count(in.impl()) > 0);
        any = any || needs.back();
      }
      if (!any) continue;
      const OpDef& def = op_def(node->op);
      const Tensor grad_out = g->second;
      const std::vector<Tensor> in_grads = def.grad(GradContext{*node, t, grad_out, needs});
      for (size_t i = 0; i < node->inputs.size(); ++i) {
        if (!needs[i] || i >= in_grads.size() || !in_grads[i].defined()) continue;
        const Tensor& in = node->inputs[i];
        KILN_CHECK(in_grads[i].shape() == in.shape() && in_grads[i].dtype() == in.dtype(),
                   "gradient of kiln::ops::", def.name, " for input ", i, " is ",
                   describe(in_grads[i].meta()), " but the input is ", describe(in.meta()));
        accumulate(grads, in, in_grads[i]);
      }
    }
  }
  std::vector<Tensor> out;
  for (const Tensor& x : xs) {
    const auto it = grads.find(x.impl());
    out.push_back(it != grads.end() ? it->second : ops::zeros_like(x));
  }
  return out;
}

std::pair<Tensor, std::vector<Tensor>> value_and_grad(const TensorFunction& f,
                                                      const std::vector<Tensor>& xs) {
  DepthGuard depth;
  std::vector<Tensor> leaves;
  for (const Tensor& x : xs) {
    // Nested calls keep the link to the outer leaves (identity records when x requires grad);
    // top-level calls start fresh leaves.
    Tensor leaf = x.requires_grad() ? ops::identity(x) : x.detach();
    if (!leaf.requires_grad()) leaf.set_requires_grad(true);
    leaves.push_back(leaf);
  }
  Tensor y;
  {
    GradModeGuard mode(true);
    y = f(leaves);
  }
  // Inside an outer value_and_grad the gradient must itself be differentiable.
  const bool nested = g_value_and_grad_depth > 1;
  std::vector<Tensor> grads = gradients(y, leaves, {}, nested);
  return {nested ? y : y.detach(), std::move(grads)};
}

std::vector<Tensor> grad(const TensorFunction& f, const std::vector<Tensor>& xs) {
  return value_and_grad(f, xs).second;
}

std::pair<Tensor, std::vector<Tensor>> value_and_grad(const std::function<Tensor()>& f,
                                                      const std::vector<Variable>& variables) {
  std::vector<Tensor> values;
  values.reserve(variables.size());
  for (const Variable& v : variables) values.push_back(v.value());
  return value_and_grad(
      [&](const std::vector<Tensor>& leaves) {
        VariableSubstitution substitution(variables, leaves);
        return f();
      },
      values);
}

}  // namespace kiln
