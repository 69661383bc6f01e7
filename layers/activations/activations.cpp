#include "kiln/layers/activations/activations.h"

#include <map>
#include <mutex>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::activations {
namespace {

// SELU's constants (Klambauer et al.), as Keras defines them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

struct Registry {
  std::mutex mutex;
  std::map<std::string, Activation, std::less<>> entries{
      {"linear", linear},   {"relu", relu},  {"sigmoid", sigmoid},   {"tanh", tanh},
      {"softmax", softmax}, {"gelu", gelu},  {"elu", elu},           {"selu", selu},
      {"swish", swish},     {"silu", swish}, {"softplus", softplus}, {"leaky_relu", leaky_relu},
  };
};

Registry& registry() {
  static Registry r;
  return r;
}

std::vector<std::string> names_locked(const Registry& r) {
  std::vector<std::string> out;
  for (const auto& [name, fn] : r.entries) out.push_back(name);
  return out;
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
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  if (const auto it = r.entries.find(name); it != r.entries.end()) return it->second;
  const std::string hint = did_you_mean(name, names_locked(r));
  throw Error(detail::concat("unknown activation '", name, "'", hint.empty() ? "" : "; ", hint));
}

void register_activation(const std::string& name, Activation fn) {
  KILN_CHECK(fn != nullptr, "register_activation('", name, "'): no function");
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  KILN_CHECK(r.entries.emplace(name, std::move(fn)).second, "activation '", name,
             "' is already registered");
}

std::vector<std::string> known_names() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  return names_locked(r);
}

}  // namespace kiln::activations
