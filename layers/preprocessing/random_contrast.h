#pragma once
// keras.layers.RandomContrast: in training, each image's pixels moved away from (or toward) the
// image's mean per channel by a factor drawn uniformly from [1 - lower, 1 + upper], then clipped
// to value_range; at inference the identity. factor f reads as Keras reads it: [0, f] within
// its bounds [0, 1] (so contrast only grows), or a pair [lower, upper].
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/layers/random/seed_generator.h"

namespace kiln::layers {

struct RandomContrastOptions {
  std::vector<double> value_range = {0, 255};
  std::optional<int64_t> seed = std::nullopt;
  KILN_LAYER_ARGS_FIELDS
};

class RandomContrast : public Layer {
  KILN_LAYER_CLASS(RandomContrast)

 public:
  // factor: [lower, upper], as read_factor gives it.
  RandomContrast(std::pair<double, double> factor, RandomContrastOptions options = {});
  explicit RandomContrast(double factor, RandomContrastOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  Config get_config() const override;

 private:
  std::pair<double, double> factor_;
  RandomContrastOptions options_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
