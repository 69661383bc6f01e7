#include "kiln/engine/executor/executable.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <sstream>

#include "kiln/engine/executor/op_profiler.h"
#include "kiln/engine/graph/op_traits.h"
#include "kiln/engine/graph/subgraphs.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln::engine {

// Where a value's data lives. Values of alias ops share their input's buffer.
enum class BufferKind : uint8_t {
  arena,     // an intermediate at a fixed arena offset
  output,    // returned to the caller: freshly allocated per run
  input,     // an argument, bound per run
  variable,  // a variable's current data, bound per run
  assigned,  // an assignment's value computed straight into its variable's data, bound per run
  constant,  // a captured tensor
  merged,    // folded into another buffer by in-place planning
  none,      // a control-flow node's bundle: its values are the tuple_gets'
};

struct Executable::Buffer {
  BufferKind kind = BufferKind::arena;
  size_t bytes = 0;
  int source = -1;    // input: argument index; variable: the read_variable node; assigned: the
                      // assignment; constant: the constant node
  int def = -1;       // the step writing it
  int last_use = -1;  // the last step reading it
  size_t offset = 0;  // arena
  std::vector<TensorImpl*> bound;  // handles re-pointed when the buffer is bound
};

namespace {

constexpr size_t kAlignment = 64;

size_t aligned_bytes(const TensorMeta& meta) {
  const size_t bytes = static_cast<size_t>(meta.shape.numel()) * dtype_size(meta.dtype);
  return std::max<size_t>((bytes + kAlignment - 1) / kAlignment * kAlignment, kAlignment);
}

// An op's further outputs (op_def's num_outputs) from the values of its node's tuple_gets (by
// index, output 0 being the node itself); those no tuple_get reads stay undefined.
std::vector<Tensor> more_outputs_of(const GraphNode& n, const std::vector<Tensor>& tuple_values) {
  std::vector<Tensor> more(static_cast<size_t>(op_def(n.op).num_outputs - 1));
  for (size_t k = 1; k < tuple_values.size(); ++k) more[k - 1] = tuple_values[k];
  return more;
}

}  // namespace

Executable::Executable(std::shared_ptr<const Graph> graph, std::span<const TensorMeta> input_metas,
                       const PlanOptions& options)
    : graph_(std::move(graph)), options_(options) {
  infer_metas(input_metas);
  assign_buffers();
  for (const Buffer& b : buffers_)
    if (b.kind == BufferKind::arena) stats_.unshared_bytes += b.bytes;
  if (options_.reuse_memory) {
    assign_in_place();  // first: a value merged into an earlier step's buffer is written sooner
    merge_in_place();
  }
  place_in_arena();
  make_steps();
}

Executable::~Executable() = default;

void Executable::infer_metas(std::span<const TensorMeta> input_metas) {
  const Graph& g = *graph_;
  subplans_of_.assign(g.nodes.size(), {nullptr, nullptr});
  KILN_CHECK(static_cast<int>(input_metas.size()) == g.num_inputs, "graph takes ", g.num_inputs,
             " inputs, got ", input_metas.size());
  metas_.reserve(g.nodes.size());
  std::vector<TensorMeta> in;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const GraphNode& n = g.nodes[i];
    switch (n.op) {
      case OpId::placeholder:
        metas_.push_back(input_metas[static_cast<size_t>(n.attrs.get_int("index"))]);
        break;
      case OpId::constant:
        metas_.push_back(g.constant(static_cast<int>(i)).value.meta());
        break;
      case OpId::read_variable:
        metas_.push_back(g.variable(static_cast<int>(i))->value.meta());
        break;
      case OpId::cond:
      case OpId::while_loop:
        metas_.push_back(n.meta);
        plan_control(i);
        break;
      case OpId::tuple_get: {
        const auto bundle = static_cast<size_t>(n.inputs[0]);
        const GraphNode& op = g.nodes[bundle];
        if (op_def(op.op).num_outputs > 1) {
          in.clear();
          for (int k : op.inputs) in.push_back(metas_[static_cast<size_t>(k)]);
          metas_.push_back(infer_output_metas(
              op.op, in, op.attrs)[static_cast<size_t>(n.attrs.get_int("index"))]);
          break;
        }
        const auto& [first, second] = subplans_of_[bundle];
        // A loop's values are its variables, which are the body's outputs too.
        const Executable* source = g.nodes[bundle].op == OpId::cond ? first : second;
        metas_.push_back(source->output_metas()[static_cast<size_t>(n.attrs.get_int("index"))]);
        break;
      }
      default:
        in.clear();
        for (int k : n.inputs) in.push_back(metas_[static_cast<size_t>(k)]);
        try {
          metas_.push_back(infer_meta(n.op, in, n.attrs));
        } catch (const ShapeError& e) {
          throw ShapeError(detail::concat("graph node %", i, ": ", e.what()));
        }
    }
  }
}

std::vector<TensorMeta> Executable::output_metas() const {
  std::vector<TensorMeta> out;
  for (int o : graph_->outputs) out.push_back(metas_[static_cast<size_t>(o)]);
  return out;
}

// Plans the subgraphs of a cond or while_loop node for its inputs' concrete metas.
void Executable::plan_control(size_t node) {
  const GraphNode& n = graph_->nodes[node];
  std::vector<TensorMeta> in;
  for (int k : n.inputs) in.push_back(metas_[static_cast<size_t>(k)]);
  auto plan = [&](const std::shared_ptr<const Graph>& graph, size_t begin, size_t count,
                  size_t captures_begin, size_t captures) {
    std::vector<TensorMeta> metas(in.begin() + static_cast<ptrdiff_t>(begin),
                                  in.begin() + static_cast<ptrdiff_t>(begin + count));
    metas.insert(metas.end(), in.begin() + static_cast<ptrdiff_t>(captures_begin),
                 in.begin() + static_cast<ptrdiff_t>(captures_begin + captures));
    PlanOptions sub = options_;
    sub.arena = nullptr;  // a subplan runs while its parent's intermediates are alive
    subplans_.push_back(std::make_unique<Executable>(graph, metas, sub));
    return subplans_.back().get();
  };
  if (n.op == OpId::cond) {
    const auto& p = static_cast<const CondPayload&>(*n.payload);
    const size_t caps = 1 + p.num_operands;
    Executable* then_plan = plan(p.then_graph, 1, p.num_operands, caps, p.then_captures);
    Executable* else_plan =
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
  Executable* cond_plan = plan(p.cond_graph, 0, p.num_vars, p.num_vars, p.cond_captures);
  Executable* body_plan =
      plan(p.body_graph, 0, p.num_vars, p.num_vars + p.cond_captures, p.body_captures);
  const auto out = body_plan->output_metas();
  for (size_t i = 0; i < p.num_vars; ++i)
    KILN_CHECK(out[i] == in[i], "kiln::while_loop (graph node %", node, "): loop variable ", i,
               " is ", describe(in[i]), " before the body and ", describe(out[i]), " after it");
  subplans_of_[node] = {cond_plan, body_plan};
}

void Executable::assign_buffers() {
  const Graph& g = *graph_;
  buffer_of_.assign(g.nodes.size(), -1);
  step_of_.assign(g.nodes.size(), -1);
  auto add_buffer = [&](BufferKind kind, size_t node, int source) {
    buffer_of_[node] = static_cast<int>(buffers_.size());
    Buffer b;
    b.kind = kind;
    b.bytes = aligned_bytes(metas_[node]);
    b.source = source;
    buffers_.push_back(std::move(b));
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const GraphNode& n = g.nodes[i];
    if (n.op == OpId::placeholder) {
      add_buffer(BufferKind::input, i, static_cast<int>(n.attrs.get_int("index")));
    } else if (n.op == OpId::constant) {
      add_buffer(BufferKind::constant, i, static_cast<int>(i));
    } else if (n.op == OpId::read_variable) {
      add_buffer(BufferKind::variable, i, static_cast<int>(i));
    } else if (is_alias(n.op)) {
      buffer_of_[i] = buffer_of_[static_cast<size_t>(n.inputs[0])];
    } else if (n.op == OpId::tuple_get) {
      // Written by the control-flow step of its bundle.
      add_buffer(BufferKind::arena, i, -1);
      buffers_.back().def = step_of_[static_cast<size_t>(n.inputs[0])];
      buffers_.back().last_use = buffers_.back().def;
    } else {
      const int step = static_cast<int>(step_node_.size());
      step_node_.push_back(static_cast<int>(i));
      step_of_[i] = step;
      const bool control = n.op == OpId::cond || n.op == OpId::while_loop;
      add_buffer(control ? BufferKind::none : BufferKind::arena, i, -1);
      buffers_.back().def = step;
      buffers_.back().last_use = step;
      for (int k : n.inputs) {
        Buffer& b = buffers_[static_cast<size_t>(buffer_of_[static_cast<size_t>(k)])];
        b.last_use = std::max(b.last_use, step);
      }
    }
  }
  // A returned variable is read after the run, so its old value must outlive every step.
  for (int o : g.outputs) {
    Buffer& b = buffers_[static_cast<size_t>(buffer_of_[static_cast<size_t>(o)])];
    if (b.kind == BufferKind::arena) b.kind = BufferKind::output;
    b.last_use = INT_MAX;
  }
  for (const Assignment& a : g.assignments)
    buffers_[static_cast<size_t>(buffer_of_[static_cast<size_t>(a.value)])].last_use = INT_MAX;
}

// An elementwise step (or one reading each element first) whose input dies at that step and has
// the output's size writes over the input: chains like relu(add(matmul(x, w), b)) then share
// one buffer.
void Executable::merge_in_place() {
  const Graph& g = *graph_;
  in_place_of_.assign(g.nodes.size(), -1);
  for (size_t s = 0; s < step_node_.size(); ++s) {
    const auto node = static_cast<size_t>(step_node_[s]);
    const GraphNode& n = g.nodes[node];
    const int out = buffer_of_[node];
    if (!reads_each_element_first(n.op) ||
        buffers_[static_cast<size_t>(out)].kind != BufferKind::arena)
      continue;
    for (int k : n.inputs) {
      const int in = buffer_of_[static_cast<size_t>(k)];
      Buffer& b = buffers_[static_cast<size_t>(in)];
      const TensorMeta& m = metas_[static_cast<size_t>(k)];
      if (in == out || b.kind != BufferKind::arena || b.last_use != static_cast<int>(s) ||
          b.bytes != buffers_[static_cast<size_t>(out)].bytes || m.shape != metas_[node].shape ||
          dtype_size(m.dtype) != dtype_size(metas_[node].dtype))
        continue;
      Buffer& o = buffers_[static_cast<size_t>(out)];
      b.last_use = o.last_use;
      o.kind = BufferKind::merged;
      std::replace(buffer_of_.begin(), buffer_of_.end(), out, in);
      in_place_of_[node] = k;
      ++stats_.in_place_steps;
      break;
    }
  }
}

// An assignment's value is computed straight into its variable when every read of the old value
// comes before the first step writing the value's buffer, or at that step if it reads element i
// before writing it (elementwise ops, optimizer updates). An optimizer's update then writes the
// weights where they are instead of into the arena and a copy after the run.
void Executable::assign_in_place() {
  const Graph& g = *graph_;
  // The last step reading each variable's old value (through any of its read_variable nodes).
  std::map<const VariableState*, int> last_read;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op != OpId::read_variable) continue;
    int& last = last_read.try_emplace(g.variable(static_cast<int>(i)).get(), -1).first->second;
    last = std::max(last, buffers_[static_cast<size_t>(buffer_of_[i])].last_use);
  }
  for (size_t k = 0; k < g.assignments.size(); ++k) {
    const Assignment& a = g.assignments[k];
    Buffer& value = buffers_[static_cast<size_t>(buffer_of_[static_cast<size_t>(a.value)])];
    if (value.kind != BufferKind::arena) continue;
    const auto read = last_read.find(a.variable.get());
    const int last = read == last_read.end() ? -1 : read->second;
    const OpId writer = g.nodes[static_cast<size_t>(step_node_[static_cast<size_t>(value.def)])].op;
    if (last > value.def || (last == value.def && !reads_each_element_first(writer))) continue;
    value.kind = BufferKind::assigned;
    value.source = static_cast<int>(k);
    ++stats_.in_place_assignments;
  }
}

// Greedy by size: the largest buffers are placed first, each at the lowest offset free of every
// placed buffer alive at the same time.
void Executable::place_in_arena() {
  std::vector<Buffer*> order;
  for (Buffer& b : buffers_)
    if (b.kind == BufferKind::arena) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(),
                   [](const Buffer* a, const Buffer* b) { return a->bytes > b->bytes; });
  std::vector<Buffer*> placed;
  size_t total = 0;
  for (Buffer* b : order) {
    if (!options_.reuse_memory) {
      b->offset = total;
      total += b->bytes;
      continue;
    }
    std::vector<Buffer*> live;
    for (Buffer* p : placed)
      if (p->def <= b->last_use && b->def <= p->last_use) live.push_back(p);
    std::sort(live.begin(), live.end(),
              [](const Buffer* x, const Buffer* y) { return x->offset < y->offset; });
    size_t offset = 0;
    for (const Buffer* p : live) {
      if (offset + b->bytes <= p->offset) break;
      offset = std::max(offset, p->offset + p->bytes);
    }
    b->offset = offset;
    total = std::max(total, offset + b->bytes);
    placed.push_back(b);
  }
  stats_.arena_bytes = total;
}

void Executable::make_steps() {
  const Graph& g = *graph_;
  for (const TensorMeta& m : metas_) device_ = m.device;
  if (!options_.arena) arena_ = Storage::allocate(device_, std::max<size_t>(stats_.arena_bytes, 1));
  values_.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op == OpId::constant) {
      values_[i] = g.constant(static_cast<int>(i)).value;
      continue;
    }
    auto impl = std::make_shared<TensorImpl>();
    impl->meta = metas_[i];
    Buffer& b = buffers_[static_cast<size_t>(buffer_of_[i])];
    if (b.kind == BufferKind::arena) {
      impl->storage = arena_;
      impl->offset = b.offset;
      if (options_.arena) arena_bound_.push_back(impl.get());
    } else if (b.kind == BufferKind::constant) {
      // A view of a captured tensor: passes after constant folding may reshape one.
      const TensorImpl& captured = *values_[static_cast<size_t>(b.source)].impl();
      impl->storage = captured.storage;
      impl->offset = captured.offset;
    } else {
      b.bound.push_back(impl.get());
    }
    values_[i] = Tensor(std::move(impl));
  }
  std::vector<std::vector<Tensor>> bundle_values(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op != OpId::tuple_get) continue;
    auto& values = bundle_values[static_cast<size_t>(g.nodes[i].inputs[0])];
    const auto index = static_cast<size_t>(g.nodes[i].attrs.get_int("index"));
    if (values.size() <= index) values.resize(index + 1);
    values[index] = values_[i];
  }
  for (int node : step_node_) {
    const GraphNode& n = g.nodes[static_cast<size_t>(node)];
    const TensorMeta& meta = metas_[static_cast<size_t>(node)];
    if (n.op == OpId::cond || n.op == OpId::while_loop) {
      steps_.push_back(
          Step{nullptr, {}, {}, nullptr, nullptr, static_cast<int>(controls_.size()), nullptr});
      controls_.push_back(make_control(n, static_cast<size_t>(node),
                                       std::move(bundle_values[static_cast<size_t>(node)])));
      continue;
    }
    if (meta.shape.numel() == 0) continue;
    const KernelFn fn = op_def(n.op).kernels[static_cast<size_t>(meta.device.type)];
    KILN_CHECK(fn != nullptr, "graph node %", node, ": kiln::ops::", op_def(n.op).name,
               " has no kernel for device ", meta.device);
    Step step{fn, {}, values_[static_cast<size_t>(node)], &n.attrs, n.payload.get()};
    for (int k : n.inputs) step.inputs.push_back(values_[static_cast<size_t>(k)]);
    if (op_def(n.op).num_outputs > 1)
      step.more_outputs = more_outputs_of(n, bundle_values[static_cast<size_t>(node)]);
    // Kernels with per-shape state (oneDNN primitives) build it now, from metas alone.
    if (const PrepareFn prepare = op_def(n.op).prepare[static_cast<size_t>(meta.device.type)])
      step.prepared = prepare(context(step));
    steps_.push_back(std::move(step));
  }
  stats_.kernel_steps = static_cast<int>(steps_.size());
  // An output whose buffer no earlier output took is computed straight into the caller's tensor.
  std::vector<int> taken;
  for (int o : g.outputs) {
    const int b = buffer_of_[static_cast<size_t>(o)];
    const bool direct = buffers_[static_cast<size_t>(b)].kind == BufferKind::output &&
                        std::find(taken.begin(), taken.end(), b) == taken.end();
    direct_output_.push_back(direct);
    if (direct) taken.push_back(b);
  }
  assignment_sources_.resize(g.assignments.size());
}

Executable::ControlStep Executable::make_control(const GraphNode& n, size_t node,
                                                 std::vector<Tensor> outputs) {
  const auto [first, second] = subplans_of_[node];
  ControlStep c{n.op, {}, std::move(outputs), first, second, {}, {}, {}, {}};
  std::vector<Tensor> in;
  for (int k : n.inputs) in.push_back(values_[static_cast<size_t>(k)]);
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

std::string Executable::plan_text() const {
  const Graph& g = *graph_;
  std::ostringstream out;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const GraphNode& n = g.nodes[i];
    const Buffer& b = buffers_[static_cast<size_t>(buffer_of_[i])];
    out << '%' << i << ": " << describe(metas_[i]) << ' ' << op_def(n.op).name << " -> ";
    if (is_alias(n.op)) {
      out << "view of %" << n.inputs[0];
    } else if (!in_place_of_.empty() && in_place_of_[i] >= 0) {
      out << "in place over %" << in_place_of_[i];
    } else {
      switch (b.kind) {
        case BufferKind::arena:
          out << "arena [" << b.offset << ", " << b.offset + b.bytes << ')';
          break;
        case BufferKind::output:
          out << "returned (allocated per call)";
          break;
        case BufferKind::input:
          out << "argument " << b.source;
          break;
        case BufferKind::variable:
          out << "variable '" << g.variable(b.source)->name << '\'';
          break;
        case BufferKind::assigned:
          out << "assigned in place to variable '"
              << g.assignments[static_cast<size_t>(b.source)].variable->name << '\'';
          break;
        case BufferKind::constant:
          out << "constant";
          break;
        case BufferKind::merged:
          break;
        case BufferKind::none:
          out << "control flow (subgraphs planned separately)";
          break;
      }
    }
    out << '\n';
  }
  out << "arena " << stats_.arena_bytes << " bytes (" << stats_.unshared_bytes << " unshared)\n";
  return out.str();
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

void Executable::run_control(const ControlStep& c) {
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

void Executable::bind(Buffer& buffer, const std::shared_ptr<Storage>& storage, size_t offset) {
  for (TensorImpl* impl : buffer.bound) {
    impl->storage = storage;
    impl->offset = offset;
  }
}

void Executable::unbind() {
  for (Buffer& b : buffers_)
    for (TensorImpl* impl : b.bound) impl->storage.reset();
  // A shared arena may be replaced by a larger one: hold no reference between runs.
  for (TensorImpl* impl : arena_bound_) impl->storage.reset();
}

std::vector<Tensor> Executable::run(std::span<const Tensor> inputs) {
  std::vector<Tensor> outputs;
  outputs.reserve(graph_->outputs.size());
  for (int o : graph_->outputs) {
    const TensorMeta& m = metas_[static_cast<size_t>(o)];
    outputs.push_back(Tensor::empty(m.shape, m.dtype, m.device));
  }
  run_into(inputs, outputs);
  return outputs;
}

KernelContext Executable::context(const Step& s) {
  return KernelContext{s.inputs, s.output, *s.attrs, s.payload, s.more_outputs};
}

void Executable::run_step(const Step& s) {
  if (s.prepared != nullptr)
    s.prepared->run(context(s));
  else if (s.fn != nullptr)
    s.fn(context(s));
  else
    run_control(controls_[static_cast<size_t>(s.control)]);
}

// Labels name what a step computes, so the same step of many plans (batch sizes) and of many
// layers of one shape add up: the op, its attributes, operand and result metas, the program.
void Executable::run_steps_profiled() {
  const Graph& g = *graph_;
  if (profile_labels_.empty()) {
    for (int node : step_node_) {
      const GraphNode& n = g.nodes[static_cast<size_t>(node)];
      std::ostringstream label;
      label << op_def(n.op).name << '(';
      for (size_t k = 0; k < n.inputs.size(); ++k)
        label << (k ? ", " : "") << describe(metas_[static_cast<size_t>(n.inputs[k])]);
      label << ") -> " << describe(metas_[static_cast<size_t>(node)]);
      if (!n.attrs.empty()) label << " {" << n.attrs.to_string() << '}';
      if (n.payload) label << ' ' << n.payload->describe();
      profile_labels_.push_back(label.str());
    }
  }
  std::vector<double> seconds(steps_.size());
  for (size_t k = 0; k < steps_.size(); ++k) {
    const auto start = std::chrono::steady_clock::now();
    run_step(steps_[k]);
    seconds[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  profiler::record(profile_labels_, seconds);
}

void Executable::run_into(std::span<const Tensor> inputs, std::span<const Tensor> outputs) {
  const Graph& g = *graph_;
  struct Unbind {
    Executable* self;
    ~Unbind() { self->unbind(); }
  } unbind_at_exit{this};

  if (SharedArena* shared = options_.arena.get()) {
    // A function traced for several devices moves its arena to the one this plan runs on.
    if (!shared->storage || shared->bytes < stats_.arena_bytes || shared->device != device_) {
      const size_t bytes = shared->device == device_ ? shared->bytes : 0;
      shared->storage.reset();  // freed before the new one is allocated
      shared->bytes = std::max<size_t>({bytes, stats_.arena_bytes, 1});
      shared->device = device_;
      shared->storage = Storage::allocate(device_, shared->bytes);
    }
    for (TensorImpl* impl : arena_bound_) impl->storage = shared->storage;
  }
  for (Buffer& b : buffers_) {
    if (b.kind == BufferKind::input) {
      const TensorImpl& arg = *inputs[static_cast<size_t>(b.source)].impl();
      bind(b, arg.storage, arg.offset);
    } else if (b.kind == BufferKind::variable) {
      const auto variable = g.variable(b.source);
      const Tensor& value = variable->value;
      KILN_CHECK(value.meta().shape == metas_[static_cast<size_t>(b.source)].shape, "variable '",
                 variable->name, "' is now ", describe(value.meta()),
                 " but the graph was planned for ",
                 describe(metas_[static_cast<size_t>(b.source)]));
      bind(b, value.impl()->storage, value.impl()->offset);
    } else if (b.kind == BufferKind::assigned) {
      // The assignment's value has the variable's meta (checked when it was recorded).
      const TensorImpl& value =
          *g.assignments[static_cast<size_t>(b.source)].variable->value.impl();
      bind(b, value.storage, value.offset);
    }
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!direct_output_[k]) continue;
    const TensorImpl& out = *outputs[k].impl();
    bind(buffers_[static_cast<size_t>(buffer_of_[static_cast<size_t>(g.outputs[k])])], out.storage,
         out.offset);
  }
  if (profiler::enabled())
    run_steps_profiled();
  else
    for (const Step& s : steps_) run_step(s);
  // Arguments, variables and constants returned as they are, and outputs sharing a buffer.
  for (size_t k = 0; k < outputs.size(); ++k)
    if (!direct_output_[k]) copy_into(outputs[k], values_[static_cast<size_t>(g.outputs[k])]);
  if (g.assignments.empty()) return;
  // Values that are themselves variables or arguments are copied first, so an assignment never
  // reads data an earlier assignment overwrote.
  auto in_place = [&](size_t k) {
    const Buffer& b =
        buffers_[static_cast<size_t>(buffer_of_[static_cast<size_t>(g.assignments[k].value)])];
    return b.kind == BufferKind::assigned && b.source == static_cast<int>(k);
  };
  for (size_t k = 0; k < g.assignments.size(); ++k) {
    if (in_place(k)) continue;
    const int value = g.assignments[k].value;
    const Buffer& b = buffers_[static_cast<size_t>(buffer_of_[static_cast<size_t>(value)])];
    const Tensor& v = values_[static_cast<size_t>(value)];
    const bool owned = b.kind == BufferKind::arena || b.kind == BufferKind::output ||
                       b.kind == BufferKind::assigned;
    assignment_sources_[k] = owned ? v : v.clone();
  }
  for (size_t k = 0; k < g.assignments.size(); ++k)
    if (!in_place(k)) copy_into(g.assignments[k].variable->value, assignment_sources_[k]);
}

}  // namespace kiln::engine
