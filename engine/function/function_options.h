#pragma once
// Options and counters of a traced function (kiln::function).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/engine/executor/plan.h"
#include "kiln/engine/function/tensor_spec.h"
#include "kiln/engine/passes/passes.h"

namespace kiln {

struct FunctionOptions {
  std::string name = "function";
  // One spec per tensor leaf of the arguments, in order. Calls must match it (unknown dims
  // match anything; dtypes cast at the boundary where lossless); one trace serves them all.
  std::optional<std::vector<TensorSpec>> input_signature{};
  // On a miss, when a cached trace differs only in dims, trace once with those dims unknown.
  bool reduce_retracing = false;
  // Without an input_signature: every tensor argument's first dim (the batch) is traced unknown,
  // so only the other dims make new traces.
  bool unknown_batch_dim = false;
  // Run the callable directly, op by op (debugging); results equal the traced run.
  bool run_eagerly = false;
  // Names of the top-level arguments in messages (default arg0, arg1, ...).
  std::vector<std::string> arg_names{};
  // float64 -> float32 (and to float16/bfloat16) at the boundary of a signature.
  bool allow_float_narrowing = true;
  engine::PassOptions passes{};
  engine::PlanOptions plan{};
};

struct FunctionStats {
  int64_t calls = 0;
  int64_t eager_calls = 0;
  int64_t traces = 0;           // the callable ran on symbolic tensors
  int64_t plans = 0;  // plans made for a new concrete shape (no user code runs)
  int64_t cache_hits = 0;       // calls that found their plan
  int64_t retrace_warnings = 0;
  double trace_seconds = 0;    // running user code symbolically and building graphs
  double compile_seconds = 0;  // passes and planning
  size_t arena_bytes = 0;      // the one arena every plan runs in: the largest plan's
};

// Process-wide switch: every kiln::function runs its callable eagerly (debugging).
void run_functions_eagerly(bool enabled);
bool functions_run_eagerly();

}  // namespace kiln
