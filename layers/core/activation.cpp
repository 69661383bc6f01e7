#include "kiln/layers/core/activation.h"

#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Activation::Activation(std::string activation, ActivationOptions options)
    : Layer(options.layer_args()),
      activation_name_(std::move(activation)),
      activation_(activations::get(activation_name_)) {
  supports_masking_ = true;
}

std::vector<Tensor> Activation::call(const std::vector<Tensor>& inputs, const CallContext&) {
  return {activation_(inputs[0])};
}

Config Activation::get_config() const {
  return Layer::get_config().set("activation", activation_name_);
}

LayerPtr Activation::from_config(const Config& c) {
  return std::make_shared<Activation>(
      c["activation"].as_string(),
      read_layer_fields<ActivationOptions>(c, "Activation", {"activation"}));
}

}  // namespace kiln::layers
