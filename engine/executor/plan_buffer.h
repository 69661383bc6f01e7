#pragma once
// The plan's buffers, shared by its files (plan.cpp, memory_plan.cpp, control_steps.cpp). Installed
// with the other headers, but only the executor's files include it.
#include <cstdint>
#include <vector>

#include "kiln/engine/executor/plan.h"

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

struct Plan::Buffer {
  BufferKind kind = BufferKind::arena;
  size_t bytes = 0;
  int source = -1;                 // input: argument index; assigned: the assignment
  NodeId node;                     // variable: the read_variable node; constant: the constant node
  int def = -1;                    // the step writing it
  int last_use = -1;               // the last step reading it
  size_t offset = 0;               // arena
  std::vector<TensorImpl*> bound;  // handles re-pointed when the buffer is bound
};

inline Plan::Buffer& Plan::buffer_for(NodeId node) {
  return buffers_[static_cast<size_t>(buffer_of_[node])];
}
inline const Plan::Buffer& Plan::buffer_for(NodeId node) const {
  return buffers_[static_cast<size_t>(buffer_of_[node])];
}

}  // namespace kiln::engine
