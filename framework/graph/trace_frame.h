#pragma once
// Which trace the current thread is recording into. Ops stamp their nodes with the frame id, so
// a graph builder can tell its own nodes from tensors that leaked in from another trace, and
// variables ask the frame's hooks for their symbolic value instead of their data.
#include <cstdint>
#include <memory>

namespace kiln {

class Tensor;
struct VariableState;

// What a trace does when traced code touches a variable.
class TraceHooks {
 public:
  virtual ~TraceHooks() = default;
  // The symbolic value of the variable at this point of the trace.
  virtual Tensor read_variable(const std::shared_ptr<VariableState>& variable) = 0;
  // Records that the variable takes `value` when the traced function runs.
  virtual void assign_variable(const std::shared_ptr<VariableState>& variable,
                               const Tensor& value) = 0;
};

// The innermost active frame's id on this thread; 0 when not tracing.
uint32_t current_trace_frame();
// The innermost active frame's hooks; nullptr when not tracing.
TraceHooks* current_trace_hooks();

// Opens a new frame with a process-unique id for the scope's lifetime; frames nest.
class TraceFrameScope {
 public:
  explicit TraceFrameScope(TraceHooks* hooks);
  ~TraceFrameScope();
  TraceFrameScope(const TraceFrameScope&) = delete;
  TraceFrameScope& operator=(const TraceFrameScope&) = delete;
  uint32_t id() const { return id_; }

 private:
  uint32_t id_;
  uint32_t previous_id_;
  TraceHooks* previous_hooks_;
};

}  // namespace kiln
