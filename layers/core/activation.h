#pragma once
// keras.layers.Activation: an activation (a name, or a name with arguments) as a layer.
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
  explicit Activation(activations::ActivationArg activation, ActivationOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  activations::ActivationArg activation_;
};

}  // namespace kiln::layers
