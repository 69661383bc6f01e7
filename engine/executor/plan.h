#pragma once
// A plan: a graph specialized for one set of concrete input shapes. Every value's meta
// is known, every kernel is looked up, and every intermediate has a fixed place in one
// preallocated arena. Running it binds the arguments and variables, allocates only the returned
// tensors, and calls the kernels in order: no shape inference, no allocation and no map lookup
// per op.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kiln/engine/graph/graph.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::engine {

// One arena for every plan of a function: its runs are serialized, so the plans of many input
// shapes (a sequence length each) take turns in one buffer, grown to the largest, instead of
// holding an arena each.
struct SharedArena {
  std::shared_ptr<Storage> storage;
  size_t bytes = 0;
  Device device;
};

struct PlanOptions {
  // Liveness-based buffer sharing, in-place elementwise ops, assignments computed straight into
  // their variables.
  bool reuse_memory = true;
  // Where the intermediates live: this shared arena (bound per run), or one of the plan's own.
  // Control-flow subplans, which run inside their parent's run, always get their own.
  std::shared_ptr<SharedArena> arena{};
};

struct PlanStats {
  size_t arena_bytes = 0;
  size_t unshared_bytes = 0;  // what the intermediates would take without sharing
  int kernel_steps = 0;
  int in_place_steps = 0;
  int in_place_assignments = 0;  // values computed straight into their variables
};

class Plan {
 public:
  // Throws naming the node when the graph does not accept these input metas.
  Plan(std::shared_ptr<const Graph> graph, std::span<const TensorMeta> input_metas,
       const PlanOptions& options = {});
  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // inputs must have the metas the plan was made for. Not reentrant: callers serialize runs of
  // one Plan (Function holds its lock).
  std::vector<Tensor> run(std::span<const Tensor> inputs);
  // The same, writing the results into caller-owned tensors of the planned output metas (which
  // must not alias the inputs): control flow runs its subgraphs this way, allocation-free.
  void run_into(std::span<const Tensor> inputs, std::span<const Tensor> outputs);

  std::vector<TensorMeta> output_metas() const;
  const PlanStats& stats() const { return stats_; }
  // One line per node: where its value lives ("arena [0, 256)", "in place over %2", "argument
  // 0", "returned", "view of %3", ...); tests compare it with memory reuse on and off.
  std::string plan_text() const;

 private:
  struct Buffer;
  struct Step {
    OpId op;
    KernelFn fn;
    std::vector<Tensor> inputs;
    Tensor output;
    const Attrs* attrs;
    const NodePayload* payload;
    int control = -1;  // index into controls_ for cond and while_loop steps (fn is null)
    std::unique_ptr<PreparedKernel> prepared{};  // runs instead of fn when the kernel has one
    std::vector<Tensor> more_outputs{};          // an op's further outputs: its tuple_gets
  };
  // A cond or while_loop step: its subgraphs' plans run with slices of the node's inputs.
  // Input lists are built once: cond's are the operands then each branch's captures; a loop's
  // are the variables (initial, or either of two buffers the body writes in turn) then the
  // condition's or the body's captures.
  struct ControlStep {
    OpId op;
    Tensor pred;                  // cond only
    std::vector<Tensor> outputs;  // the tuple_get values (scratch where unused)
    Plan* first;                  // then-branch or loop condition
    Plan* second;                 // else-branch or loop body
    std::vector<Tensor> first_inputs[3];
    std::vector<Tensor> second_inputs[3];
    std::vector<Tensor> vars[2];  // while_loop: the body's two output buffers
    Tensor flag;                  // while_loop: the condition's result
  };
  ControlStep make_control(const GraphNode& n, NodeId node, std::vector<Tensor> outputs);

  void infer_metas(std::span<const TensorMeta> input_metas);
  void plan_control(NodeId node);
  void run_control(const ControlStep& step);
  void assign_buffers();
  void merge_in_place();
  void assign_in_place();
  void place_in_arena();
  void make_steps();
  static KernelContext context(const Step& s);
  void run_step(const Step& s);
  void run_steps_profiled();
  void bind(Buffer& buffer, const std::shared_ptr<Storage>& storage, size_t offset);
  void unbind();
  Buffer& buffer_for(NodeId node);  // plan_buffer.h
  const Buffer& buffer_for(NodeId node) const;
  const TensorMeta& meta_of(NodeId node) const { return metas_[node]; }
  const Tensor& value_of(NodeId node) const { return values_[node]; }

  std::shared_ptr<const Graph> graph_;
  PlanOptions options_;
  NodeMap<TensorMeta> metas_;        // concrete
  NodeMap<int> buffer_of_;           // index into buffers_
  NodeMap<NodeId> in_place_of_;      // the input it overwrites, if any
  std::vector<bool> direct_output_;  // per output: its buffer is bound to the caller's tensor
  std::vector<Tensor> assignment_sources_;
  std::vector<Buffer> buffers_;
  NodeMap<Tensor> values_;  // the handle kernels read and write
  std::vector<Step> steps_;
  std::vector<ControlStep> controls_;
  std::vector<std::unique_ptr<Plan>> subplans_;
  NodeMap<std::pair<Plan*, Plan*>> subplans_of_;
  NodeMap<int> step_of_;                     // -1 if none
  std::vector<NodeId> step_node_;            // per step
  std::vector<std::string> profile_labels_;  // per step, made when profiled
  Device device_;
  std::shared_ptr<Storage> arena_;        // the plan's own, without a shared arena
  std::vector<TensorImpl*> arena_bound_;  // with one: handles re-pointed at it per run
  PlanStats stats_;
};

}  // namespace kiln::engine
