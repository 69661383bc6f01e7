#pragma once
// A recorded op application: the node type shared by eager autodiff (the tape is the chain of
// nodes reachable from a tensor) and by tracing (a traced graph is the same chain over symbolic
// tensors). Every primitive op has exactly one output, the tensor that owns the node.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/ops/op_list.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln {

// Data a graph op carries beyond its attributes (a captured constant, a variable, a fused
// program). Shared and immutable once the node exists.
struct NodePayload {
  virtual ~NodePayload() = default;
  virtual std::string describe() const = 0;  // for graph dumps
};

struct Node {
  OpId op;
  Attrs attrs;
  std::vector<Tensor> inputs;
  std::shared_ptr<const NodePayload> payload;
  // The trace this node was recorded in (see trace_frame.h); 0 for eager autodiff records.
  uint32_t frame = 0;
};

}  // namespace kiln
