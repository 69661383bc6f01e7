#pragma once
// Reverse-mode autodiff. Gradients are built from the public ops, so they record (for higher
// orders) and trace (for graph mode) like any other code.
#include <functional>
#include <utility>
#include <vector>

#include "kiln/framework/tensor/tensor.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln {

// d(sum(y * grad_y))/d(x) for each x; grad_y defaults to ones. Each x must be a tensor y was
// computed from through recorded ops (a leaf with requires_grad, or an intermediate); an x that
// y does not depend on gets zeros. With create_graph the gradient computation itself is
// recorded, so it can be differentiated again.
std::vector<Tensor> gradients(const Tensor& y, const std::vector<Tensor>& xs,
                              const Tensor& grad_y = {}, bool create_graph = false);

using TensorFunction = std::function<Tensor(const std::vector<Tensor>&)>;

// f's value at xs and its gradient with respect to each of xs. f sees fresh handles of xs that
// require gradients; nesting value_and_grad inside f gives higher-order derivatives.
std::pair<Tensor, std::vector<Tensor>> value_and_grad(const TensorFunction& f,
                                                      const std::vector<Tensor>& xs);
std::vector<Tensor> grad(const TensorFunction& f, const std::vector<Tensor>& xs);

// f's value and its gradient with respect to each variable's value, for an f that reads the
// variables itself (a model's forward pass): inside f the variables read as tensors autodiff
// follows. Works eagerly and while tracing (gradients of the variables' values at f's start).
std::pair<Tensor, std::vector<Tensor>> value_and_grad(const std::function<Tensor()>& f,
                                                      const std::vector<Variable>& variables);

}  // namespace kiln
