#pragma once
// keras.layers.Reshape: each sample to target_shape (one dim may be -1 and is inferred).
#include "kiln/layers/layer.h"

namespace kiln::layers {

struct ReshapeOptions {
  KILN_LAYER_ARGS_FIELDS
};

class Reshape : public Layer {
  KILN_LAYER_CLASS(Reshape)

 public:
  explicit Reshape(Shape target_shape, ReshapeOptions options = {});
  static LayerPtr from_config(const Config& config);
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  Shape target_;
};

}  // namespace kiln::layers
