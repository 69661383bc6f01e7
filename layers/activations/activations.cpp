#include "kiln/layers/activations/activations.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::activations {
namespace {

// SELU's constants (Klambauer et al.), as Keras defines them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

NamedRegistry<Activation>& registry() {
  static NamedRegistry<Activation> r = [] {
    NamedRegistry<Activation> built("activation");
    built.add("linear", linear);
    built.add("relu", relu);
    built.add("sigmoid", sigmoid);
    built.add("tanh", tanh);
    built.add("softmax", softmax);
    built.add("gelu", gelu);
    built.add("elu", elu);
    built.add("selu", selu);
    built.add("swish", swish, {"silu"});
    built.add("softplus", softplus);
    built.add("leaky_relu", leaky_relu);
    return built;
  }();
  return r;
}

}  // namespace

Tensor linear(const Tensor& x) {
  return x;
}
Tensor relu(const Tensor& x) {
  return ops::relu(x);
}
Tensor sigmoid(const Tensor& x) {
  return ops::sigmoid(x);
}
Tensor tanh(const Tensor& x) {
  return ops::tanh(x);
}
Tensor softmax(const Tensor& x) {
  return ops::softmax(x, -1);
}
Tensor gelu(const Tensor& x) {
  return ops::gelu(x, false);
}
Tensor elu(const Tensor& x) {
  return ops::elu(x, 1.0);
}
Tensor selu(const Tensor& x) {
  return ops::elu(x, kSeluAlpha) * kSeluScale;
}
Tensor swish(const Tensor& x) {
  return x * ops::sigmoid(x);
}
Tensor softplus(const Tensor& x) {
  return ops::softplus(x);
}
Tensor leaky_relu(const Tensor& x) {
  return ops::leaky_relu(x, 0.2);
}

Activation get(std::string_view name) {
  return registry().get(name);
}

void register_activation(const std::string& name, Activation fn) {
  KILN_CHECK(fn != nullptr, "register_activation('", name, "'): no function");
  registry().add(name, std::move(fn));
}

std::vector<std::string> known_names() {
  return registry().names();
}

}  // namespace kiln::activations
