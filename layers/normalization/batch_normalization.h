#pragma once
// keras.layers.BatchNormalization: normalizes each channel (along `axis`) with the batch's
// statistics in training and with moving averages of them at inference. The moving averages
// are non-trainable weights updated by Variable::assign, so the update happens eagerly and
// inside traced train steps alike. A frozen layer (trainable = false) always uses the moving
// averages, as in Keras.
#include <cstdint>
#include <string>

#include "kiln/layers/layer.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

struct BatchNormalizationOptions {
  int64_t axis = -1;
  double momentum = 0.99;
  double epsilon = 1e-3;
  // The batch statistics over the global batch of a data-parallel step (all replicas' shards),
  // as with one device on the whole batch; the same as false with one replica.
  bool synchronized = false;
  bool center = true;  // learn beta
  bool scale = true;   // learn gamma
  initializers::InitializerArg beta_initializer = "zeros";
  initializers::InitializerArg gamma_initializer = "ones";
  initializers::InitializerArg moving_mean_initializer = "zeros";
  initializers::InitializerArg moving_variance_initializer = "ones";
  regularizers::RegularizerPtr beta_regularizer = nullptr;
  regularizers::RegularizerPtr gamma_regularizer = nullptr;
  constraints::ConstraintPtr beta_constraint = nullptr;
  constraints::ConstraintPtr gamma_constraint = nullptr;
  KILN_LAYER_ARGS_FIELDS
};

class BatchNormalization : public Layer {
  KILN_LAYER_CLASS(BatchNormalization)

 public:
  explicit BatchNormalization(BatchNormalizationOptions options = {});
  static LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& input_shapes) override;
  // The mask (one rank below the input) restricts the batch statistics to unmasked positions.
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  Config get_config() const override;

  const Variable& moving_mean() const { return moving_mean_; }
  const Variable& moving_variance() const { return moving_variance_; }

 private:
  // The batch mean and variance over every axis but the channel axis (kept as size 1), over all
  // replicas' batches when synchronized.
  std::pair<Tensor, Tensor> moments(const Tensor& x, const Tensor& mask) const;
  // moving = moving * momentum + batch * (1 - momentum).
  void update_moving(const Variable& moving, const Tensor& batch) const;

  BatchNormalizationOptions options_;
  int axis_ = -1;  // normalized against the input rank in build
  Variable gamma_;
  Variable beta_;
  Variable moving_mean_;
  Variable moving_variance_;
};

}  // namespace kiln::layers
