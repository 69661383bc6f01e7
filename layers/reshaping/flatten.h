#pragma once
// keras.layers.Flatten: [batch, d1, d2, ...] -> [batch, d1 * d2 * ...].
#include "kiln/layers/layer.h"

namespace kiln::layers {

struct FlattenOptions {
  KILN_LAYER_ARGS_FIELDS
};

class Flatten : public Layer {
  KILN_LAYER_CLASS(Flatten)

 public:
  explicit Flatten(FlattenOptions options = {}) : Layer(options.layer_args()) {}
  static LayerPtr from_config(const Config& config);
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;
};

}  // namespace kiln::layers
