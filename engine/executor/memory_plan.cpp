// Memory planning: which buffer holds each value (arena, argument, variable, returned, in place
// over an input or computed straight into a variable), and where in the arena each intermediate
// lives.
#include <algorithm>
#include <climits>
#include <map>
#include <sstream>

#include "kiln/engine/executor/plan.h"
#include "kiln/engine/executor/plan_buffer.h"
#include "kiln/engine/graph/op_traits.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln::engine {
namespace {

constexpr size_t kAlignment = 64;

size_t aligned_bytes(const TensorMeta& meta) {
  const size_t bytes = static_cast<size_t>(meta.shape.numel()) * dtype_size(meta.dtype);
  return std::max<size_t>((bytes + kAlignment - 1) / kAlignment * kAlignment, kAlignment);
}

}  // namespace

void Plan::assign_buffers() {
  const Graph& g = *graph_;
  buffer_of_ = NodeMap<int>(g.nodes.size(), -1);
  step_of_ = NodeMap<int>(g.nodes.size(), -1);
  auto add_buffer = [&](BufferKind kind, NodeId node) -> Buffer& {
    buffer_of_[node] = static_cast<int>(buffers_.size());
    Buffer& b = buffers_.emplace_back();
    b.kind = kind;
    b.bytes = aligned_bytes(metas_[node]);
    return b;
  };
  for (const NodeId id : g.nodes.ids()) {
    const GraphNode& n = g.nodes[id];
    if (n.op == OpId::placeholder) {
      add_buffer(BufferKind::input, id).source = static_cast<int>(n.attrs.get(attr::index));
    } else if (n.op == OpId::constant) {
      add_buffer(BufferKind::constant, id).node = id;
    } else if (n.op == OpId::read_variable) {
      add_buffer(BufferKind::variable, id).node = id;
    } else if (is_alias(n.op)) {
      buffer_of_[id] = buffer_of_[n.inputs[0]];
    } else if (n.op == OpId::tuple_get) {
      // Written by the control-flow step of its bundle.
      Buffer& b = add_buffer(BufferKind::arena, id);
      b.def = step_of_[n.inputs[0]];
      b.last_use = b.def;
    } else {
      const int step = static_cast<int>(step_node_.size());
      step_node_.push_back(id);
      step_of_[id] = step;
      const bool control = n.op == OpId::cond || n.op == OpId::while_loop;
      Buffer& b = add_buffer(control ? BufferKind::none : BufferKind::arena, id);
      b.def = step;
      b.last_use = step;
      for (const NodeId k : n.inputs) {
        Buffer& read = buffer_for(k);
        read.last_use = std::max(read.last_use, step);
      }
    }
  }
  // A returned variable is read after the run, so its old value must outlive every step.
  for (const NodeId o : g.outputs) {
    Buffer& b = buffer_for(o);
    if (b.kind == BufferKind::arena) b.kind = BufferKind::output;
    b.last_use = INT_MAX;
  }
  for (const Assignment& a : g.assignments) buffer_for(a.value).last_use = INT_MAX;
}

// An elementwise step (or one reading each element first) whose input dies at that step and has
// the output's size writes over the input: chains like relu(add(matmul(x, w), b)) then share
// one buffer.
void Plan::merge_in_place() {
  const Graph& g = *graph_;
  in_place_of_ = NodeMap<NodeId>(g.nodes.size());
  for (size_t s = 0; s < step_node_.size(); ++s) {
    const NodeId node = step_node_[s];
    const GraphNode& n = g.nodes[node];
    const int out = buffer_of_[node];
    if (!reads_each_element_first(n.op) ||
        buffers_[static_cast<size_t>(out)].kind != BufferKind::arena)
      continue;
    for (const NodeId k : n.inputs) {
      const int in = buffer_of_[k];
      Buffer& b = buffers_[static_cast<size_t>(in)];
      const TensorMeta& m = meta_of(k);
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
void Plan::assign_in_place() {
  const Graph& g = *graph_;
  // The last step reading each variable's old value (through any of its read_variable nodes).
  std::map<const VariableState*, int> last_read;
  for (const NodeId id : g.nodes.ids()) {
    if (g.nodes[id].op != OpId::read_variable) continue;
    int& last = last_read.try_emplace(g.variable(id).get(), -1).first->second;
    last = std::max(last, buffer_for(id).last_use);
  }
  for (size_t k = 0; k < g.assignments.size(); ++k) {
    const Assignment& a = g.assignments[k];
    Buffer& value = buffer_for(a.value);
    if (value.kind != BufferKind::arena) continue;
    const auto read = last_read.find(a.variable.get());
    const int last = read == last_read.end() ? -1 : read->second;
    const OpId writer = g.nodes[step_node_[static_cast<size_t>(value.def)]].op;
    if (last > value.def || (last == value.def && !reads_each_element_first(writer))) continue;
    value.kind = BufferKind::assigned;
    value.source = static_cast<int>(k);
    ++stats_.in_place_assignments;
  }
}

// Greedy by size: the largest buffers are placed first, each at the lowest offset free of every
// placed buffer alive at the same time.
void Plan::place_in_arena() {
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

std::string Plan::plan_text() const {
  const Graph& g = *graph_;
  std::ostringstream out;
  for (const NodeId id : g.nodes.ids()) {
    const GraphNode& n = g.nodes[id];
    const Buffer& b = buffer_for(id);
    out << '%' << id << ": " << describe(metas_[id]) << ' ' << op_def(n.op).name << " -> ";
    if (is_alias(n.op)) {
      out << "view of %" << n.inputs[0];
    } else if (!in_place_of_.empty() && in_place_of_[id].valid()) {
      out << "in place over %" << in_place_of_[id];
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
          out << "variable '" << g.variable(b.node)->name << '\'';
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

}  // namespace kiln::engine
