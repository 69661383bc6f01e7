#pragma once
// keras.layers.TimeDistributed: one layer applied to every step of a sequence, the same weights
// at each step. [B, T, ...] runs through the layer as [B*T, ...] and comes back as [B, T, ...out],
// so B and T may be unknown while tracing: a new length needs no new trace.
//
//   auto per_step = TimeDistributed(Dense(8));   // [B, T, 16] -> [B, T, 8]
//
// The input mask ([B, T], true = keep) passes through to the output; the layer sees it flattened
// to one entry per step. Unlike Keras's loop over the steps, a BatchNormalization inside takes its
// statistics over all steps at once.
#include "kiln/layers/layer.h"

namespace kiln::layers {

struct TimeDistributedOptions {
  KILN_LAYER_ARGS_FIELDS
};

class TimeDistributed : public Layer {
  KILN_LAYER_CLASS(TimeDistributed)

 public:
  explicit TimeDistributed(LayerRef layer, TimeDistributedOptions options = {});
  static LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  Config get_config() const override;
  std::vector<WeightGroup> weight_groups() const override;

  const Layer& layer() const { return *layer_; }

 private:
  LayerPtr layer_;
};

}  // namespace kiln::layers
