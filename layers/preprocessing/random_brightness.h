#pragma once
// keras.layers.RandomBrightness: in training, each image shifted by a delta drawn uniformly from
// [lower, upper] times the width of value_range, then clipped to value_range; at inference the
// identity. factor f reads as [-f, f] within [-1, 1], or a pair [lower, upper].
#include "kiln/layers/preprocessing/random_color_adjustment.h"

namespace kiln::layers {

using RandomBrightnessOptions = RandomColorOptions;

class RandomBrightness : public RandomColorAdjustment {
  KILN_LAYER_CLASS(RandomBrightness)

 public:
  RandomBrightness(std::pair<double, double> factor, RandomBrightnessOptions options = {});
  explicit RandomBrightness(double factor, RandomBrightnessOptions options = {});
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor adjust(const Tensor& images, const Tensor& seed) const override;
};

}  // namespace kiln::layers
