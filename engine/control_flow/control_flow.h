#pragma once
// Control flow that stays inside a traced graph, so a branch or a loop bound that depends on a
// tensor's value does not retrace per value. Eagerly both run as plain C++.
//
//   auto [y] = kiln::cond(ops::greater(ops::sum(x), 0.0), [](auto& v) { return std::vector{v[0]
//   * 2.0}; },
//                         [](auto& v) { return std::vector{-v[0]}; }, {x});
//   // x doubled n times, n a tensor argument:
//   auto out = kiln::while_loop([&](auto& v) { return ops::less(v[0], n); },
//                               [](auto& v) { return std::vector{v[0] + 1.0, v[1] * 2.0}; },
//                               {scalar(0), x});
//
// Branches and bodies may also use tensors and variables from the enclosing code; they become
// inputs of the graph node. Both branches of a cond must return the same number of tensors with
// equal dtypes and ranks (and, when planned, equal shapes); loop variables keep their dtypes and
// shapes. Assigning variables inside a branch or body, and gradients through cond and
// while_loop, are not supported yet: both are errors, never silent.
#include <functional>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln {

using TensorsFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
using PredicateFn = std::function<Tensor(const std::vector<Tensor>&)>;

// then_fn(operands) where pred (a one-element tensor) is nonzero, else else_fn(operands).
std::vector<Tensor> cond(const Tensor& pred, const TensorsFn& then_fn, const TensorsFn& else_fn,
                         const std::vector<Tensor>& operands);

// vars = loop_vars; while (cond_fn(vars) is nonzero) vars = body_fn(vars); returns vars.
std::vector<Tensor> while_loop(const PredicateFn& cond_fn, const TensorsFn& body_fn,
                               const std::vector<Tensor>& loop_vars);

}  // namespace kiln
