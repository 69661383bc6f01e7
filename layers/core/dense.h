#pragma once
// keras.layers.Dense: activation(inputs @ kernel + bias) over the last axis.
#include <string>

#include "kiln/layers/activations/activations.h"
#include "kiln/layers/initializers/initializers.h"
#include "kiln/layers/layer.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

struct DenseOptions {
  activations::ActivationArg activation = "linear";
  bool use_bias = true;
  initializers::InitializerArg kernel_initializer = "glorot_uniform";
  initializers::InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  KILN_LAYER_ARGS_FIELDS
};

class Dense : public Layer {
  KILN_LAYER_CLASS(Dense)

 public:
  explicit Dense(int64_t units, DenseOptions options = {});
  static LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

  int64_t units() const { return units_; }
  const Variable& kernel() const { return kernel_; }
  const Variable& bias() const { return bias_; }

 private:
  int64_t units_;
  DenseOptions options_;
  Variable kernel_;
  Variable bias_;
};

}  // namespace kiln::layers
