#include "kiln/layers/preprocessing/random_brightness.h"

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {
namespace {

constexpr std::pair<double, double> kBounds{-1.0, 1.0};

}  // namespace

RandomBrightness::RandomBrightness(std::pair<double, double> factor,
                                   RandomBrightnessOptions options)
    : RandomColorAdjustment(factor, std::move(options), kBounds, "RandomBrightness") {}

RandomBrightness::RandomBrightness(double factor, RandomBrightnessOptions options)
    : RandomBrightness(read_factor(Config(factor), kBounds, "RandomBrightness"),
                       std::move(options)) {}

Tensor RandomBrightness::adjust(const Tensor& images, const Tensor& seed) const {
  const double width = options_.value_range[1] - options_.value_range[0];
  return images + uniform_per_image(images, seed, factor_.first * width, factor_.second * width);
}

LayerPtr RandomBrightness::from_config(const Config& c) {
  const Arguments a = read_arguments(c, kBounds, "RandomBrightness");
  return std::make_shared<RandomBrightness>(a.factor, a);
}

}  // namespace kiln::layers
