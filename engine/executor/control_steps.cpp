// cond and while_loop steps: their subgraphs planned for the node's concrete inputs, the input
// lists built once, and the runs that pick a branch or loop.
#include "kiln/engine/executor/plan.h"
#include "kiln/engine/executor/plan_buffer.h"
#include "kiln/engine/graph/subgraphs.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln::engine {

// Plans the subgraphs of a cond or while_loop node for its inputs' concrete metas.
void Plan::plan_control(NodeId node) {
  const GraphNode& n = graph_->nodes[node];
  std::vector<TensorMeta> in;
  for (const NodeId k : n.inputs) in.push_back(meta_of(k));
  auto plan = [&](const std::shared_ptr<const Graph>& graph, size_t begin, size_t count,
                  size_t captures_begin, size_t captures) {
    std::vector<TensorMeta> metas(in.begin() + static_cast<ptrdiff_t>(begin),
                                  in.begin() + static_cast<ptrdiff_t>(begin + count));
    metas.insert(metas.end(), in.begin() + static_cast<ptrdiff_t>(captures_begin),
                 in.begin() + static_cast<ptrdiff_t>(captures_begin + captures));
    PlanOptions sub = options_;
    sub.arena = nullptr;  // a subplan runs while its parent's intermediates are alive
    subplans_.push_back(std::make_unique<Plan>(graph, metas, sub));
    return subplans_.back().get();
  };
  if (n.op == OpId::cond) {
    const auto& p = static_cast<const CondPayload&>(*n.payload);
    const size_t caps = 1 + p.num_operands;
    Plan* then_plan = plan(p.then_graph, 1, p.num_operands, caps, p.then_captures);
    Plan* else_plan =
        plan(p.else_graph, 1, p.num_operands, caps + p.then_captures, p.else_captures);
    const auto a = then_plan->output_metas();
    const auto b = else_plan->output_metas();
    for (size_t i = 0; i < a.size(); ++i)
      KILN_CHECK(a[i] == b[i], "kiln::cond (graph node %", node, "): output ", i, " is ",
                 describe(a[i]), " in the then-branch and ", describe(b[i]),
                 " in the else-branch for these inputs");
    subplans_of_[node] = {then_plan, else_plan};
    return;
  }
  const auto& p = static_cast<const WhileLoopPayload&>(*n.payload);
  Plan* cond_plan = plan(p.cond_graph, 0, p.num_vars, p.num_vars, p.cond_captures);
  Plan* body_plan =
      plan(p.body_graph, 0, p.num_vars, p.num_vars + p.cond_captures, p.body_captures);
  const auto out = body_plan->output_metas();
  for (size_t i = 0; i < p.num_vars; ++i)
    KILN_CHECK(out[i] == in[i], "kiln::while_loop (graph node %", node, "): loop variable ", i,
               " is ", describe(in[i]), " before the body and ", describe(out[i]), " after it");
  subplans_of_[node] = {cond_plan, body_plan};
}

Plan::ControlStep Plan::make_control(const GraphNode& n, NodeId node, std::vector<Tensor> outputs) {
  const auto [first, second] = subplans_of_[node];
  ControlStep c{n.op, {}, std::move(outputs), first, second, {}, {}, {}, {}};
  std::vector<Tensor> in;
  for (const NodeId k : n.inputs) in.push_back(value_of(k));
  auto range = [&](size_t begin, size_t count) {
    return std::vector<Tensor>(in.begin() + static_cast<ptrdiff_t>(begin),
                               in.begin() + static_cast<ptrdiff_t>(begin + count));
  };
  auto joined = [](std::vector<Tensor> head, const std::vector<Tensor>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  auto fresh = [&](const std::vector<TensorMeta>& metas) {
    std::vector<Tensor> out;
    for (const TensorMeta& m : metas) out.push_back(Tensor::empty(m.shape, m.dtype, m.device));
    return out;
  };
  const std::vector<TensorMeta> results =
      n.op == OpId::cond ? first->output_metas() : second->output_metas();
  c.outputs.resize(results.size());
  for (size_t i = 0; i < results.size(); ++i)
    if (!c.outputs[i].defined())
      c.outputs[i] = Tensor::empty(results[i].shape, results[i].dtype, results[i].device);
  if (n.op == OpId::cond) {
    const auto& p = static_cast<const CondPayload&>(*n.payload);
    c.pred = in[0];
    const std::vector<Tensor> operands = range(1, p.num_operands);
    c.first_inputs[0] = joined(operands, range(1 + p.num_operands, p.then_captures));
    c.second_inputs[0] =
        joined(operands, range(1 + p.num_operands + p.then_captures, p.else_captures));
    return c;
  }
  const auto& p = static_cast<const WhileLoopPayload&>(*n.payload);
  const std::vector<Tensor> cond_captures = range(p.num_vars, p.cond_captures);
  const std::vector<Tensor> body_captures = range(p.num_vars + p.cond_captures, p.body_captures);
  c.vars[0] = fresh(results);
  c.vars[1] = fresh(results);
  c.flag = fresh(first->output_metas())[0];
  const std::vector<Tensor> sources[3] = {range(0, p.num_vars), c.vars[0], c.vars[1]};
  for (int s = 0; s < 3; ++s) {
    c.first_inputs[s] = joined(sources[s], cond_captures);
    c.second_inputs[s] = joined(sources[s], body_captures);
  }
  return c;
}

namespace {

// Whether a one-element tensor is nonzero, read in place (no allocation) on the CPU.
bool truthy(const Tensor& t) {
  if (!t.device().is_cpu()) return t.item<bool>();
  double value = 0;
  convert_buffer(t.raw_data(), t.dtype(), &value, DType::f64, 1);
  return value != 0;
}

}  // namespace

void Plan::run_control(const ControlStep& c) {
  if (c.op == OpId::cond) {
    if (truthy(c.pred))
      c.first->run_into(c.first_inputs[0], c.outputs);
    else
      c.second->run_into(c.second_inputs[0], c.outputs);
    return;
  }
  // Source 0 is the loop's inputs; the body writes buffers 1 and 2 in turn, never the one it
  // reads.
  int source = 0;
  while (true) {
    c.first->run_into(c.first_inputs[source], std::span(&c.flag, 1));
    if (!truthy(c.flag)) break;
    const int next = source == 1 ? 2 : 1;
    c.second->run_into(c.second_inputs[source], c.vars[next - 1]);
    source = next;
  }
  const std::vector<Tensor>& final_vars = c.second_inputs[source];
  for (size_t i = 0; i < c.outputs.size(); ++i) copy_into(c.outputs[i], final_vars[i]);
}

}  // namespace kiln::engine
