#include "kiln/engine/executor/plan.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "kiln/engine/executor/op_profiler.h"
#include "kiln/engine/executor/plan_buffer.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/kernel_launch.h"

namespace kiln::engine {
namespace {

// An op's further outputs (op_def's num_outputs) from the values of its node's tuple_gets (by
// index, output 0 being the node itself); those no tuple_get reads stay undefined.
std::vector<Tensor> more_outputs_of(const GraphNode& n, const std::vector<Tensor>& tuple_values) {
  std::vector<Tensor> more(static_cast<size_t>(op_def(n.op).num_outputs - 1));
  for (size_t k = 1; k < tuple_values.size(); ++k) more[k - 1] = tuple_values[k];
  return more;
}

}  // namespace

Plan::Plan(std::shared_ptr<const Graph> graph, std::span<const TensorMeta> input_metas,
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

Plan::~Plan() = default;

void Plan::infer_metas(std::span<const TensorMeta> input_metas) {
  const Graph& g = *graph_;
  subplans_of_ = NodeMap<std::pair<Plan*, Plan*>>(g.nodes.size(), {nullptr, nullptr});
  KILN_CHECK(static_cast<int>(input_metas.size()) == g.num_inputs, "graph takes ", g.num_inputs,
             " inputs, got ", input_metas.size());
  metas_.reserve(g.nodes.size());
  std::vector<TensorMeta> in;
  for (const NodeId id : g.nodes.ids()) {
    const GraphNode& n = g.nodes[id];
    switch (n.op) {
      case OpId::placeholder:
        metas_.push_back(input_metas[static_cast<size_t>(n.attrs.get(attr::index))]);
        break;
      case OpId::constant:
        metas_.push_back(g.constant(id).value.meta());
        break;
      case OpId::read_variable:
        metas_.push_back(g.variable(id)->value.meta());
        break;
      case OpId::cond:
      case OpId::while_loop:
        metas_.push_back(n.meta);
        plan_control(id);
        break;
      case OpId::tuple_get: {
        const NodeId bundle = n.inputs[0];
        const GraphNode& op = g.nodes[bundle];
        if (op_def(op.op).num_outputs > 1) {
          in.clear();
          for (const NodeId k : op.inputs) in.push_back(meta_of(k));
          metas_.push_back(infer_output_metas(
              op.op, in, op.attrs)[static_cast<size_t>(n.attrs.get(attr::index))]);
          break;
        }
        const auto& [first, second] = subplans_of_[bundle];
        // A loop's values are its variables, which are the body's outputs too.
        const Plan* source = g.nodes[bundle].op == OpId::cond ? first : second;
        metas_.push_back(source->output_metas()[static_cast<size_t>(n.attrs.get(attr::index))]);
        break;
      }
      default:
        in.clear();
        for (const NodeId k : n.inputs) in.push_back(meta_of(k));
        try {
          metas_.push_back(infer_meta(n.op, in, n.attrs));
        } catch (const ShapeError& e) {
          throw ShapeError(detail::concat("graph node %", id, ": ", e.what()));
        }
    }
  }
}

std::vector<TensorMeta> Plan::output_metas() const {
  std::vector<TensorMeta> out;
  for (const NodeId o : graph_->outputs) out.push_back(meta_of(o));
  return out;
}

void Plan::make_steps() {
  const Graph& g = *graph_;
  for (const TensorMeta& m : metas_) device_ = m.device;
  if (!options_.arena) arena_ = Storage::allocate(device_, std::max<size_t>(stats_.arena_bytes, 1));
  values_ = NodeMap<Tensor>(g.nodes.size());
  for (const NodeId id : g.nodes.ids()) {
    if (g.nodes[id].op == OpId::constant) {
      values_[id] = g.constant(id).value;
      continue;
    }
    auto impl = std::make_shared<TensorImpl>();
    impl->meta = metas_[id];
    Buffer& b = buffer_for(id);
    if (b.kind == BufferKind::arena) {
      impl->storage = arena_;
      impl->offset = b.offset;
      if (options_.arena) arena_bound_.push_back(impl.get());
    } else if (b.kind == BufferKind::constant) {
      // A view of a captured tensor: passes after constant folding may reshape one.
      const TensorImpl& captured = *value_of(b.node).impl();
      impl->storage = captured.storage;
      impl->offset = captured.offset;
    } else {
      b.bound.push_back(impl.get());
    }
    values_[id] = Tensor(std::move(impl));
  }
  NodeMap<std::vector<Tensor>> bundle_values(g.nodes.size());
  for (const NodeId id : g.nodes.ids()) {
    if (g.nodes[id].op != OpId::tuple_get) continue;
    auto& values = bundle_values[g.nodes[id].inputs[0]];
    const auto index = static_cast<size_t>(g.nodes[id].attrs.get(attr::index));
    if (values.size() <= index) values.resize(index + 1);
    values[index] = values_[id];
  }
  for (const NodeId node : step_node_) {
    const GraphNode& n = g.nodes[node];
    const TensorMeta& meta = meta_of(node);
    if (n.op == OpId::cond || n.op == OpId::while_loop) {
      steps_.push_back(Step{
          n.op, nullptr, {}, {}, nullptr, nullptr, static_cast<int>(controls_.size()), nullptr});
      controls_.push_back(make_control(n, node, std::move(bundle_values[node])));
      continue;
    }
    if (meta.shape.numel() == 0) continue;
    const KernelFn fn = op_def(n.op).kernels[static_cast<size_t>(meta.device.type)];
    KILN_CHECK(fn != nullptr, "graph node %", node, ": kiln::ops::", op_def(n.op).name,
               " has no kernel for device ", meta.device);
    Step step{n.op, fn, {}, value_of(node), &n.attrs, n.payload.get()};
    for (const NodeId k : n.inputs) step.inputs.push_back(value_of(k));
    if (op_def(n.op).num_outputs > 1) step.more_outputs = more_outputs_of(n, bundle_values[node]);
    // Kernels with per-shape state (oneDNN primitives) build it now, from metas alone.
    if (const PrepareFn prepare = op_def(n.op).prepare[static_cast<size_t>(meta.device.type)])
      step.prepared = prepare(context(step));
    steps_.push_back(std::move(step));
  }
  stats_.kernel_steps = static_cast<int>(steps_.size());
  // An output whose buffer no earlier output took is computed straight into the caller's tensor.
  std::vector<int> taken;
  for (const NodeId o : g.outputs) {
    const int b = buffer_of_[o];
    const bool direct = buffers_[static_cast<size_t>(b)].kind == BufferKind::output &&
                        std::find(taken.begin(), taken.end(), b) == taken.end();
    direct_output_.push_back(direct);
    if (direct) taken.push_back(b);
  }
  assignment_sources_.resize(g.assignments.size());
}

void Plan::bind(Buffer& buffer, const std::shared_ptr<Storage>& storage, size_t offset) {
  for (TensorImpl* impl : buffer.bound) {
    impl->storage = storage;
    impl->offset = offset;
  }
}

void Plan::unbind() {
  for (Buffer& b : buffers_)
    for (TensorImpl* impl : b.bound) impl->storage.reset();
  // A shared arena may be replaced by a larger one: hold no reference between runs.
  for (TensorImpl* impl : arena_bound_) impl->storage.reset();
}

std::vector<Tensor> Plan::run(std::span<const Tensor> inputs) {
  std::vector<Tensor> outputs;
  outputs.reserve(graph_->outputs.size());
  for (const NodeId o : graph_->outputs) {
    const TensorMeta& m = meta_of(o);
    outputs.push_back(Tensor::empty(m.shape, m.dtype, m.device));
  }
  run_into(inputs, outputs);
  return outputs;
}

KernelContext Plan::context(const Step& s) {
  return KernelContext{s.inputs, s.output, *s.attrs, s.payload, s.more_outputs};
}

void Plan::run_step(const Step& s) {
  if (s.control >= 0)
    run_control(controls_[static_cast<size_t>(s.control)]);
  else
    launch_kernel(s.op, s.fn, s.prepared.get(), context(s));
}

// Labels name what a step computes, so the same step of many plans (batch sizes) and of many
// layers of one shape add up: the op, its attributes, operand and result metas, the program.
void Plan::run_steps_profiled() {
  const Graph& g = *graph_;
  if (profile_labels_.empty()) {
    for (const NodeId node : step_node_) {
      const GraphNode& n = g.nodes[node];
      std::ostringstream label;
      label << op_def(n.op).name << '(';
      for (size_t k = 0; k < n.inputs.size(); ++k)
        label << (k ? ", " : "") << describe(meta_of(n.inputs[k]));
      label << ") -> " << describe(meta_of(node));
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

void Plan::run_into(std::span<const Tensor> inputs, std::span<const Tensor> outputs) {
  const Graph& g = *graph_;
  struct Unbind {
    Plan* self;
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
      const auto variable = g.variable(b.node);
      const Tensor& value = variable->value;
      KILN_CHECK(value.meta().shape == meta_of(b.node).shape, "variable '", variable->name,
                 "' is now ", describe(value.meta()), " but the graph was planned for ",
                 describe(meta_of(b.node)));
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
    bind(buffer_for(g.outputs[k]), out.storage, out.offset);
  }
  if (profiler::enabled())
    run_steps_profiled();
  else
    for (const Step& s : steps_) run_step(s);
  // Arguments, variables and constants returned as they are, and outputs sharing a buffer.
  for (size_t k = 0; k < outputs.size(); ++k)
    if (!direct_output_[k]) copy_into(outputs[k], value_of(g.outputs[k]));
  if (g.assignments.empty()) return;
  // Values that are themselves variables or arguments are copied first, so an assignment never
  // reads data an earlier assignment overwrote.
  auto in_place = [&](size_t k) {
    const Buffer& b = buffer_for(g.assignments[k].value);
    return b.kind == BufferKind::assigned && b.source == static_cast<int>(k);
  };
  for (size_t k = 0; k < g.assignments.size(); ++k) {
    if (in_place(k)) continue;
    const NodeId value = g.assignments[k].value;
    const Buffer& b = buffer_for(value);
    const Tensor& v = value_of(value);
    const bool owned = b.kind == BufferKind::arena || b.kind == BufferKind::output ||
                       b.kind == BufferKind::assigned;
    assignment_sources_[k] = owned ? v : v.clone();
  }
  for (size_t k = 0; k < g.assignments.size(); ++k)
    if (!in_place(k)) copy_into(g.assignments[k].variable->value, assignment_sources_[k]);
}

}  // namespace kiln::engine
