#pragma once
// Activations by Keras name ("relu", "gelu", "swish", ...), and one-line registration of custom
// ones, which then work by name everywhere a name is accepted (layers, YAML).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::activations {

using Activation = std::function<Tensor(const Tensor&)>;

Tensor linear(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor softmax(const Tensor& x);  // over the last axis
Tensor gelu(const Tensor& x);     // exact (erf), as keras.activations.gelu
Tensor elu(const Tensor& x);      // alpha 1
Tensor selu(const Tensor& x);
Tensor swish(const Tensor& x);  // x * sigmoid(x); also "silu"
Tensor softplus(const Tensor& x);
Tensor leaky_relu(const Tensor& x);  // negative_slope 0.2, as keras.activations.leaky_relu

// By name; an unknown name is an error with the closest known names.
Activation get(std::string_view name);
// Makes `name` usable wherever an activation name is; replacing a built-in is an error.
void register_activation(const std::string& name, Activation fn);
std::vector<std::string> known_names();

}  // namespace kiln::activations
