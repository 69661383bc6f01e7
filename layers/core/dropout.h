#pragma once
// keras.layers.Dropout: in training, zeroes each input with probability `rate` and scales the
// rest by 1 / (1 - rate); at inference the identity. Random bits come from a stateless op keyed
// by the layer's seed variable, so traced steps draw fresh masks without retracing.
#include <cstdint>
#include <optional>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/layers/random/seed_generator.h"

namespace kiln::layers {

struct DropoutOptions {
  std::optional<int64_t> seed = std::nullopt;
  // The shape of the keep mask, broadcast over the input: one entry per input axis, each 1 (the
  // same choice all along that axis, e.g. every timestep), -1 (Keras's None: the input's size)
  // or the input's size. Empty: the input's shape.
  std::vector<int64_t> noise_shape = {};
  KILN_LAYER_ARGS_FIELDS
};

class Dropout : public Layer {
  KILN_LAYER_CLASS(Dropout)

 public:
  explicit Dropout(double rate, DropoutOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  Config get_config() const override;

 private:
  // A tensor of the keep mask's shape, from x (whose batch size may be known only at run time).
  Tensor mask_template(const Tensor& x) const;

  double rate_;
  DropoutOptions options_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
