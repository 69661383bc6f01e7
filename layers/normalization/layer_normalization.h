#pragma once
// keras.layers.LayerNormalization: normalizes each sample over `axis` (the last by default) with
// its own mean and variance, then scales by gamma and shifts by beta. rms_scaling divides by the
// root of the variance without centering and learns only gamma (Keras's formula).
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

struct LayerNormalizationOptions {
  std::vector<int64_t> axis = {-1};
  double epsilon = 1e-3;
  bool center = true;
  bool scale = true;
  bool rms_scaling = false;
  initializers::InitializerArg beta_initializer = "zeros";
  initializers::InitializerArg gamma_initializer = "ones";
  regularizers::RegularizerPtr beta_regularizer = nullptr;
  regularizers::RegularizerPtr gamma_regularizer = nullptr;
  constraints::ConstraintPtr beta_constraint = nullptr;
  constraints::ConstraintPtr gamma_constraint = nullptr;
  KILN_LAYER_ARGS_FIELDS
};

class LayerNormalization : public Layer {
  KILN_LAYER_CLASS(LayerNormalization)

 public:
  explicit LayerNormalization(LayerNormalizationOptions options = {});
  static LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  LayerNormalizationOptions options_;
  std::vector<int> axes_;  // normalized against the input rank and sorted in build
  Shape param_shape_;      // the input's sizes on axes_
  Variable gamma_;
  Variable beta_;
};

}  // namespace kiln::layers
