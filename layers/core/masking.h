#pragma once
// keras.layers.Masking: marks the time steps whose features all equal mask_value as padding.
// The output mask is [batch, steps] (true where any feature differs), and masked steps of the
// output are zeroed, as in Keras.
#include "kiln/layers/layer.h"

namespace kiln::layers {

struct MaskingOptions {
  KILN_LAYER_ARGS_FIELDS
};

class Masking : public Layer {
  KILN_LAYER_CLASS(Masking)

 public:
  explicit Masking(double mask_value = 0.0, MaskingOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  Config get_config() const override;

 private:
  Tensor keep(const Tensor& x) const;  // [batch, steps, ...] bool, the last axis reduced

  double mask_value_;
};

}  // namespace kiln::layers
