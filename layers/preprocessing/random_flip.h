#pragma once
// keras.layers.RandomFlip: in training, each image mirrored left-right ("horizontal"), upside
// down ("vertical"), or both at once ("horizontal_and_vertical"), with probability 1/2 per image;
// at inference the identity. Seeded like Dropout (a SeedGenerator), so a traced step draws new
// flips every call without retracing.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/layers/layer.h"
#include "kiln/layers/random/seed_generator.h"

namespace kiln::layers {

struct RandomFlipOptions {
  std::string mode = "horizontal_and_vertical";
  std::optional<int64_t> seed = std::nullopt;
  KILN_LAYER_ARGS_FIELDS
};

class RandomFlip : public Layer {
  KILN_LAYER_CLASS(RandomFlip)

 public:
  explicit RandomFlip(RandomFlipOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  Config get_config() const override;

 private:
  RandomFlipOptions options_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
