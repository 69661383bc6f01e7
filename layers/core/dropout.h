#pragma once
// keras.layers.Dropout: in training, zeroes each input with probability `rate` and scales the
// rest by 1 / (1 - rate); at inference the identity. Random bits come from a stateless op keyed
// by the layer's seed variable, so traced steps draw fresh masks without retracing.
#include <cstdint>
#include <optional>

#include "layers/layer.h"
#include "layers/random/seed_generator.h"

namespace kiln::layers {

struct DropoutOptions {
  std::optional<int64_t> seed = std::nullopt;
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
  double rate_;
  std::optional<int64_t> seed_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
