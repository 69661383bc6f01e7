#pragma once
// What the passes and the planner need to know about an op beyond its table entry.
#include "kiln/framework/ops/op_list.h"

namespace kiln::engine {

// Output element i depends only on input elements at i (after broadcasting): such ops can run
// in place over an input of the output's size and fuse into one loop.
constexpr bool is_elementwise(OpId op) {
  switch (op) {
#define KILN_ELEMENTWISE_CASE(name) case OpId::name:
    KILN_UNARY_OPS(KILN_ELEMENTWISE_CASE)
    KILN_BINARY_OPS(KILN_ELEMENTWISE_CASE)
#undef KILN_ELEMENTWISE_CASE
    case OpId::cast:
    case OpId::where:
    case OpId::fused_elementwise:  // a chain of the above
      return true;
    default:
      return false;
  }
}

// Every output element i is written after each input's element i is read, and no other input
// element is read: such a step may write over an input of its output's size (in-place planning)
// or straight into a variable it reads.
constexpr bool reads_each_element_first(OpId op) {
  // The collectives reduce a copy of their input element by element (in place, when the planner
  // gives the output the input's buffer: no copy at all).
  return is_elementwise(op) || op == OpId::adam_update || op == OpId::all_reduce_start ||
         op == OpId::all_reduce_wait;
}

// Ops that talk to the other ranks: every rank runs them in the same order, so they are never
// evaluated while optimizing (constant folding) and only the scheduler moves them.
constexpr bool is_collective(OpId op) {
  return op == OpId::all_reduce_start || op == OpId::all_reduce_wait;
}

// Ops whose output is always its first input's data under another shape: the planner gives them
// no buffer and no step.
constexpr bool is_alias(OpId op) {
  return op == OpId::identity || op == OpId::reshape || op == OpId::expand_dims ||
         op == OpId::squeeze || op == OpId::reshape_like;
}

}  // namespace kiln::engine
