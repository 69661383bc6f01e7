#pragma once
// keras.layers.RandomContrast: in training, each image's pixels moved away from (or toward) the
// image's mean per channel by a factor drawn uniformly from [1 - lower, 1 + upper], then clipped
// to value_range; at inference the identity. factor f reads as Keras reads it: [0, f] within
// its bounds [0, 1] (so contrast only grows), or a pair [lower, upper].
#include "kiln/layers/preprocessing/random_color_adjustment.h"

namespace kiln::layers {

using RandomContrastOptions = RandomColorOptions;

class RandomContrast : public RandomColorAdjustment {
  KILN_LAYER_CLASS(RandomContrast)

 public:
  RandomContrast(std::pair<double, double> factor, RandomContrastOptions options = {});
  explicit RandomContrast(double factor, RandomContrastOptions options = {});
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor adjust(const Tensor& images, const Tensor& seed) const override;
};

}  // namespace kiln::layers
