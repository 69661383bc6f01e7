#include "kiln/engine/control_flow/control_flow.h"

#include <memory>
#include <string>

#include "kiln/engine/graph/build_graph.h"
#include "kiln/engine/graph/subgraphs.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/graph/trace_frame.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln {
namespace engine {

std::string CondPayload::describe() const {
  return detail::concat("<then: ", then_graph->nodes.size(),
                        " nodes, else: ", else_graph->nodes.size(), " nodes>");
}

std::string WhileLoopPayload::describe() const {
  return detail::concat("<condition: ", cond_graph->nodes.size(),
                        " nodes, body: ", body_graph->nodes.size(), " nodes>");
}

}  // namespace engine

namespace {

using engine::Graph;

// Variable reads inside a branch ask the enclosing trace (so they see its assignments and become
// captures); assignments inside a branch are refused.
class BranchHooks : public TraceHooks {
 public:
  BranchHooks(TraceHooks* outer, const char* what) : outer_(outer), what_(what) {}
  Tensor read_variable(const std::shared_ptr<VariableState>& variable) override {
    KILN_CHECK(outer_ != nullptr, what_, " read variable '", variable->name,
               "' outside of a traced function");
    return outer_->read_variable(variable);
  }
  void assign_variable(const std::shared_ptr<VariableState>& variable, const Tensor&) override {
    throw Error(detail::concat(what_, " assigns variable '", variable->name,
                               "'; assigning inside cond or while_loop is not supported yet: "
                               "compute the value with them and assign it outside"));
  }

 private:
  TraceHooks* outer_;
  const char* what_;
};

struct TracedBranch {
  std::shared_ptr<const Graph> graph;
  std::vector<Tensor> captures;
  std::vector<TensorMeta> output_metas;
};

std::vector<TensorMeta> metas_of(const std::vector<Tensor>& tensors) {
  std::vector<TensorMeta> out;
  for (const Tensor& t : tensors) out.push_back(t.meta());
  return out;
}

TracedBranch trace_branch(const std::vector<TensorMeta>& metas, const TensorsFn& fn,
                          const char* what) {
  BranchHooks hooks(current_trace_hooks(), what);
  engine::TraceRecord record;
  {
    TraceFrameScope frame(&hooks);
    record.frame = frame.id();
    record.inputs = engine::make_placeholders(metas, frame.id());
    record.outputs = fn(record.inputs);
  }
  TracedBranch out;
  for (const Tensor& t : record.outputs) {
    KILN_CHECK(t.defined(), what, " returned an undefined tensor");
    out.output_metas.push_back(t.meta());
  }
  engine::Graph graph = engine::build_graph(record, what, &out.captures);
  out.graph = std::make_shared<const Graph>(engine::optimize(std::move(graph), {}));
  return out;
}

// Gradients would silently be zero through a node autodiff cannot see into: refuse instead.
void require_no_gradient(const std::vector<Tensor>& inputs, const char* op) {
  if (!grad_enabled()) return;
  for (const Tensor& t : inputs)
    KILN_CHECK(!t.requires_grad(), "kiln::", op,
               ": gradients through traced control flow are not supported yet, and an input ",
               describe(t.meta()), " requires one (compute it under NoGradGuard or outside)");
}

// A node yielding a bundle, and one tuple_get per output.
std::vector<Tensor> record_bundle(OpId op, std::vector<Tensor> inputs,
                                  std::shared_ptr<const NodePayload> payload,
                                  const std::vector<TensorMeta>& output_metas) {
  const uint32_t frame = current_trace_frame();
  Tensor bundle = Tensor::symbolic(
      {DType::boolean, Shape{}, output_metas.empty() ? Device{} : output_metas[0].device});
  bundle.impl()->node =
      std::make_shared<Node>(Node{op, {}, std::move(inputs), std::move(payload), frame});
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < output_metas.size(); ++i) {
    Tensor t = Tensor::symbolic(output_metas[i]);
    t.impl()->node = std::make_shared<Node>(Node{
        OpId::tuple_get, Attrs{{attr::index, static_cast<int64_t>(i)}}, {bundle}, nullptr, frame});
    outputs.push_back(std::move(t));
  }
  return outputs;
}

void append(std::vector<Tensor>& to, const std::vector<Tensor>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

std::vector<Tensor> cond(const Tensor& pred, const TensorsFn& then_fn, const TensorsFn& else_fn,
                         const std::vector<Tensor>& operands) {
  KILN_CHECK(pred.defined() && (pred.numel() == 1 || pred.numel() < 0),
             "kiln::cond: pred must "
             "have one element, got ",
             pred.defined() ? describe(pred.meta()) : "undefined");
  if (current_trace_frame() == 0) return pred.item<bool>() ? then_fn(operands) : else_fn(operands);

  const std::vector<TensorMeta> metas = metas_of(operands);
  TracedBranch then_branch = trace_branch(metas, then_fn, "cond then-branch");
  TracedBranch else_branch = trace_branch(metas, else_fn, "cond else-branch");
  const auto& a = then_branch.output_metas;
  const auto& b = else_branch.output_metas;
  KILN_CHECK(a.size() == b.size(), "kiln::cond: the then-branch returns ", a.size(),
             " tensors and the else-branch ", b.size());
  std::vector<TensorMeta> outputs;
  for (size_t i = 0; i < a.size(); ++i) {
    KILN_CHECK(a[i].dtype == b[i].dtype && a[i].shape.rank() == b[i].shape.rank(),
               "kiln::cond: output ", i, " is ", describe(a[i]), " in the then-branch and ",
               describe(b[i]), " in the else-branch");
    TensorMeta m = a[i];
    for (int d = 0; d < m.shape.rank(); ++d)
      if (a[i].shape[d] != b[i].shape[d]) m.shape[d] = Shape::kUnknownDim;
    outputs.push_back(m);
  }
  auto payload = std::make_shared<engine::CondPayload>();
  payload->then_graph = then_branch.graph;
  payload->else_graph = else_branch.graph;
  payload->num_operands = operands.size();
  payload->then_captures = then_branch.captures.size();
  payload->else_captures = else_branch.captures.size();
  std::vector<Tensor> inputs{pred};
  append(inputs, operands);
  append(inputs, then_branch.captures);
  append(inputs, else_branch.captures);
  require_no_gradient(inputs, "cond");
  return record_bundle(OpId::cond, std::move(inputs), std::move(payload), outputs);
}

std::vector<Tensor> while_loop(const PredicateFn& cond_fn, const TensorsFn& body_fn,
                               const std::vector<Tensor>& loop_vars) {
  if (current_trace_frame() == 0) {
    std::vector<Tensor> vars = loop_vars;
    while (cond_fn(vars).item<bool>()) vars = body_fn(vars);
    return vars;
  }
  const std::vector<TensorMeta> metas = metas_of(loop_vars);
  TracedBranch condition = trace_branch(
      metas, [&](const std::vector<Tensor>& v) { return std::vector<Tensor>{cond_fn(v)}; },
      "while_loop condition");
  TracedBranch body = trace_branch(metas, body_fn, "while_loop body");
  const TensorMeta& c = condition.output_metas[0];
  KILN_CHECK(c.shape.numel() == 1 || c.shape.numel() < 0,
             "kiln::while_loop: the condition must return one element, got ", describe(c));
  KILN_CHECK(body.output_metas.size() == metas.size(), "kiln::while_loop: the body returns ",
             body.output_metas.size(), " tensors for ", metas.size(), " loop variables");
  for (size_t i = 0; i < metas.size(); ++i)
    KILN_CHECK(body.output_metas[i] == metas[i], "kiln::while_loop: loop variable ", i, " is ",
               describe(metas[i]), " before the body and ", describe(body.output_metas[i]),
               " after it; loop variables must keep their dtype and shape");
  auto payload = std::make_shared<engine::WhileLoopPayload>();
  payload->cond_graph = condition.graph;
  payload->body_graph = body.graph;
  payload->num_vars = loop_vars.size();
  payload->cond_captures = condition.captures.size();
  payload->body_captures = body.captures.size();
  std::vector<Tensor> inputs = loop_vars;
  append(inputs, condition.captures);
  append(inputs, body.captures);
  require_no_gradient(inputs, "while_loop");
  return record_bundle(OpId::while_loop, std::move(inputs), std::move(payload), metas);
}

}  // namespace kiln
