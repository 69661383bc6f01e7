#pragma once
// keras.layers.RandomBrightness: in training, each image shifted by a delta drawn uniformly from
// [lower, upper] times the width of value_range, then clipped to value_range; at inference the
// identity. factor f reads as [-f, f] within [-1, 1], or a pair [lower, upper].
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/layers/random/seed_generator.h"

namespace kiln::layers {

struct RandomBrightnessOptions {
  std::vector<double> value_range = {0, 255};
  std::optional<int64_t> seed = std::nullopt;
  KILN_LAYER_ARGS_FIELDS
};

class RandomBrightness : public Layer {
  KILN_LAYER_CLASS(RandomBrightness)

 public:
  // factor: [lower, upper], as read_factor gives it.
  RandomBrightness(std::pair<double, double> factor, RandomBrightnessOptions options = {});
  explicit RandomBrightness(double factor, RandomBrightnessOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  Config get_config() const override;

 private:
  std::pair<double, double> factor_;
  RandomBrightnessOptions options_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
