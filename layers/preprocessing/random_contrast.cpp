#include "kiln/layers/preprocessing/random_contrast.h"

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {
namespace {

constexpr std::pair<double, double> kBounds{0.0, 1.0};

}  // namespace

RandomContrast::RandomContrast(std::pair<double, double> factor, RandomContrastOptions options)
    : RandomColorAdjustment(factor, std::move(options), kBounds, "RandomContrast") {}

RandomContrast::RandomContrast(double factor, RandomContrastOptions options)
    : RandomContrast(read_factor(Config(factor), kBounds, "RandomContrast"), std::move(options)) {}

Tensor RandomContrast::adjust(const Tensor& images, const Tensor& seed) const {
  const Tensor factor = uniform_per_image(images, seed, 1 - factor_.first, 1 + factor_.second);
  const Tensor mean = ops::mean(images, {1, 2}, true);
  return (images - mean) * factor + mean;
}

LayerPtr RandomContrast::from_config(const Config& c) {
  const Arguments a = read_arguments(c, kBounds, "RandomContrast");
  return std::make_shared<RandomContrast>(a.factor, a);
}

}  // namespace kiln::layers
