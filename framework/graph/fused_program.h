#pragma once
// The payload of a fused_elementwise node: a chain of elementwise ops as a small register
// program, so the whole chain runs as one loop over the output with no intermediate tensors.
// The engine's fusion pass writes it; the backends' fused kernels run it.
#include <string>
#include <vector>

#include "kiln/framework/core/dtype.h"
#include "kiln/framework/graph/node.h"
#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/ops/op_list.h"

namespace kiln {

struct FusedProgram final : NodePayload {
  // Registers [0, num_inputs) hold the node's inputs (broadcast to its output); instruction k
  // writes register num_inputs + k. The node's output is the last instruction's register.
  struct Instruction {
    OpId op;                    // an elementwise op: unary, binary, cast or where
    Attrs attrs;                // the op's own (alpha of leaky_relu, dtype of cast, ...)
    std::vector<int> operands;  // registers, in the op's input order
  };

  int num_inputs = 0;
  // Every register holds this floating type; bool values are held as 0 and 1, so comparisons,
  // masks and where conditions fuse with the arithmetic around them.
  DType compute_dtype = DType::f32;
  std::vector<Instruction> instructions;

  // "<float32: t0 = mul(x0, x1); t1 = add(t0, x2); t2 = relu(t1)>"
  std::string describe() const override;
};

}  // namespace kiln
