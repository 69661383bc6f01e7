#include "kiln/layers/activations/activations.h"

#include <optional>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/keras_object.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::activations {
namespace {

// SELU's constants (Klambauer et al.), as Keras defines them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// Keras's relu with all its arguments (ReLU.static_call): values above `threshold` pass, capped
// at `max_value`; below it, negative_slope * (x - threshold).
Tensor relu_with(const Tensor& x, double negative_slope, std::optional<double> max_value,
                 double threshold) {
  if (negative_slope != 0 && !max_value && threshold == 0)
    return ops::leaky_relu(x, negative_slope);
  Tensor y = threshold != 0 ? x * ops::cast(ops::greater(x, threshold), x.dtype()) : ops::relu(x);
  if (max_value) y = ops::clip(y, 0.0, *max_value);
  if (negative_slope != 0) y = y - ops::relu(threshold - x) * negative_slope;
  return y;
}

// How a function is made from its arguments; `defaults` holds each argument it takes.
struct ActivationKind {
  Config defaults;
  std::function<Activation(const Config& args)> make;
};

ActivationKind fixed(Activation fn) {
  return {Config::map(), [fn = std::move(fn)](const Config&) { return fn; }};
}

std::vector<std::string> keys_of(const Config& map) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : map.as_map()) keys.push_back(key);
  return keys;
}

NamedRegistry<ActivationKind>& registry() {
  static NamedRegistry<ActivationKind> r = [] {
    NamedRegistry<ActivationKind> built("activation");
    built.add("linear", fixed(linear));
    built.add(
        "relu",
        {Config::map().set("negative_slope", 0.0).set("max_value", Config()).set("threshold", 0.0),
         [](const Config& args) {
           const double slope = args.get_double("negative_slope", 0.0);
           const Config* max = args.find("max_value");
           const std::optional<double> cap =
               max == nullptr || max->is_null() ? std::nullopt : std::optional(max->as_double());
           const double threshold = args.get_double("threshold", 0.0);
           if (slope == 0 && !cap && threshold == 0) return Activation(relu);
           return Activation([=](const Tensor& x) { return relu_with(x, slope, cap, threshold); });
         }});
    built.add("sigmoid", fixed(sigmoid));
    built.add("tanh", fixed(tanh));
    built.add("softmax",
              {Config::map().set("axis", int64_t{-1}), [](const Config& args) {
                 const int64_t axis = args.get_int("axis", -1);
                 return Activation([axis](const Tensor& x) { return ops::softmax(x, axis); });
               }});
    built.add("gelu", {Config::map().set("approximate", false), [](const Config& args) {
                         const bool approximate = args.get_bool("approximate", false);
                         return Activation(
                             [approximate](const Tensor& x) { return ops::gelu(x, approximate); });
                       }});
    built.add("elu", {Config::map().set("alpha", 1.0), [](const Config& args) {
                        const double alpha = args.get_double("alpha", 1.0);
                        return Activation([alpha](const Tensor& x) { return ops::elu(x, alpha); });
                      }});
    built.add("selu", fixed(selu));
    built.add("swish", fixed(swish), {"silu"});
    built.add("softplus", fixed(softplus));
    built.add("relu6", fixed(ops::relu6));
    built.add("hard_sigmoid", fixed(ops::hard_sigmoid));
    built.add("hard_silu", fixed(ops::hard_silu), {"hard_swish"});
    built.add("mish", fixed(ops::mish));
    built.add("softsign", fixed(ops::softsign));
    built.add("log_softmax",
              {Config::map().set("axis", int64_t{-1}), [](const Config& args) {
                 const int64_t axis = args.get_int("axis", -1);
                 return Activation([axis](const Tensor& x) { return ops::log_softmax(x, axis); });
               }});
    built.add("glu", {Config::map().set("axis", int64_t{-1}), [](const Config& args) {
                        const int64_t axis = args.get_int("axis", -1);
                        return Activation([axis](const Tensor& x) { return ops::glu(x, axis); });
                      }});
    built.add("leaky_relu",
              {Config::map().set("negative_slope", 0.2), [](const Config& args) {
                 const double slope = args.get_double("negative_slope", 0.2);
                 return Activation([slope](const Tensor& x) { return ops::leaky_relu(x, slope); });
               }});
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
  return registry().get(name).make(Config::map());
}

Activation get(std::string_view name, const Config& arguments) {
  const ActivationKind kind = registry().get(name, arguments.where());
  arguments.check_keys(keys_of(kind.defaults), name);
  return kind.make(arguments);
}

Config default_arguments(std::string_view name) {
  return registry().get(name).defaults;
}

void register_activation(const std::string& name, Activation fn) {
  KILN_CHECK(fn != nullptr, "register_activation('", name, "'): no function");
  registry().add(name, fixed(std::move(fn)));
}

std::vector<std::string> known_names() {
  return registry().names();
}

ActivationArg::ActivationArg(const char* name) : ActivationArg(std::string(name)) {}
ActivationArg::ActivationArg(std::string_view name) : ActivationArg(std::string(name)) {}
ActivationArg::ActivationArg(const std::string& name)
    : name_(name), arguments_(Config::map()), fn_(get(name)) {}
ActivationArg::ActivationArg(std::string name, Config arguments)
    : name_(std::move(name)), arguments_(std::move(arguments)), fn_(get(name_, arguments_)) {}

ActivationArg ActivationArg::from_config(const Config& spec) {
  const KerasObject object = read_keras_object(spec, "an activation");
  return ActivationArg(object.class_name.as_string(), object.arguments);
}

Config ActivationArg::to_config() const {
  if (arguments_.size() == 0) return Config(name_);
  return Config::map().set("class_name", name_).set("config", arguments_);
}

}  // namespace kiln::activations
