#pragma once
// Activations by Keras name ("relu", "gelu", "swish", ...) and with Keras's arguments
// ({leaky_relu: {negative_slope: 0.1}}, {relu: {max_value: 6}}), and one-line registration of
// custom ones, which then work by name everywhere a name is accepted (layers, YAML).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
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

// By name, with default arguments; an unknown name is an error with the closest known names.
Activation get(std::string_view name);
// With arguments, those of keras.activations.<name>: relu (negative_slope, max_value,
// threshold), leaky_relu (negative_slope), elu (alpha), gelu (approximate), softmax, log_softmax
// and glu (axis). An argument the function does not take is an error naming it. Also known by
// name: relu6, hard_sigmoid, hard_silu (hard_swish), mish, softsign.
Activation get(std::string_view name, const Config& arguments);
// Each argument `name` takes, at its default ({} for those that take none).
Config default_arguments(std::string_view name);
// Makes `name` usable wherever an activation name is; replacing a built-in is an error.
void register_activation(const std::string& name, Activation fn);
std::vector<std::string> known_names();

// An activation as a layer's options hold one: a name ("relu"), or a name with arguments, so
// `DenseOptions{.activation = "relu"}` reads as in Keras. Resolved when made: an unknown name or
// argument fails at the layer's construction.
class ActivationArg {
 public:
  ActivationArg(const char* name);         // NOLINT(google-explicit-constructor): Keras's form
  ActivationArg(std::string_view name);    // NOLINT(google-explicit-constructor)
  ActivationArg(const std::string& name);  // NOLINT(google-explicit-constructor)
  ActivationArg(std::string name, Config arguments);

  // A name, {leaky_relu: {negative_slope: 0.1}} or {"class_name": ..., "config": {...}}.
  static ActivationArg from_config(const Config& spec);
  // The name alone when no arguments were given (Keras's form, which Keras reads), else
  // {"class_name": name, "config": arguments} (kiln's; Keras serializes activations by name only).
  Config to_config() const;

  const std::string& name() const { return name_; }
  const Config& arguments() const { return arguments_; }
  Tensor operator()(const Tensor& x) const { return fn_(x); }

 private:
  std::string name_;
  Config arguments_;
  Activation fn_;
};

}  // namespace kiln::activations
