#pragma once
// A recorded op application: the node type shared by eager autodiff (the tape is the chain of
// nodes reachable from a tensor) and by tracing (a traced graph is the same chain over symbolic
// tensors). Every primitive op has exactly one output, the tensor that owns the node.
#include <vector>

#include "framework/ops/attrs.h"
#include "framework/ops/op_list.h"
#include "framework/tensor/tensor.h"

namespace kiln {

struct Node {
  OpId op;
  Attrs attrs;
  std::vector<Tensor> inputs;
};

}  // namespace kiln
