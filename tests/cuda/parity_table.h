#pragma once
// The backend parity table: cases that run one op on the CPU and on a GPU over the same inputs,
// compared within a per-dtype tolerance, values and (for differentiable ops over floating
// inputs) gradients. Every op with a CUDA kernel has cases here; parity_table_test.cpp checks
// that, runs every case on the CPU everywhere, and against a GPU where one is visible.
#include <functional>
#include <string>
#include <vector>

#include "kiln/framework/ops/op_list.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::testing {

struct ParityCase {
  OpId op;                     // the op the case exercises
  std::string label;           // op, dtype and shapes, for failure messages
  std::vector<Tensor> inputs;  // on the CPU
  std::function<Tensor(const std::vector<Tensor>&)> fn;
  bool gradients = false;  // compare the gradients of the floating inputs too
};

std::vector<ParityCase> parity_cases();

}  // namespace kiln::testing
