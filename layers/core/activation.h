#pragma once
// keras.layers.Activation: an activation by name as a layer.
#include <string>

#include "kiln/layers/activations/activations.h"
#include "kiln/layers/layer.h"

namespace kiln::layers {

struct ActivationOptions {
  KILN_LAYER_ARGS_FIELDS
};

class Activation : public Layer {
  KILN_LAYER_CLASS(Activation)

 public:
  explicit Activation(std::string activation, ActivationOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  std::string activation_name_;
  activations::Activation activation_;
};

}  // namespace kiln::layers
