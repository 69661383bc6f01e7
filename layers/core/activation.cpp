#include "kiln/layers/core/activation.h"

#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Activation::Activation(activations::ActivationArg activation, ActivationOptions options)
    : Layer(options.layer_args()), activation_(std::move(activation)) {
  supports_masking_ = true;
}

std::vector<Tensor> Activation::call(const std::vector<Tensor>& inputs, const CallContext&) {
  return {activation_(inputs[0])};
}

Config Activation::get_config() const {
  return Layer::get_config().set("activation", activation_.to_config());
}

LayerPtr Activation::from_config(const Config& c) {
  return std::make_shared<Activation>(
      activations::ActivationArg::from_config(c["activation"]),
      read_layer_fields<ActivationOptions>(c, "Activation", {"activation"}));
}

}  // namespace kiln::layers
