#include "kiln/layers/preprocessing/random_translation.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::layers {

RandomTranslation::RandomTranslation(Config height_factor, Config width_factor,
                                     RandomAffineOptions options)
    : RandomAffineByAxis(std::move(height_factor), std::move(width_factor), std::move(options),
                         "RandomTranslation", false) {}

Tensor RandomTranslation::draw_transforms(const Tensor& images) {
  const Tensor dy =
      uniform_per_image(images, height_.first, height_.second) * static_cast<double>(images.dim(1));
  const Tensor dx =
      uniform_per_image(images, width_.first, width_.second) * static_cast<double>(images.dim(2));
  const Tensor zero = ops::zeros_like(dx), one = ops::ones_like(dx);
  return ops::concat({one, zero, -dx, zero, one, -dy}, 1);
}

LayerPtr RandomTranslation::from_config(const Config& c) {
  const Arguments a = read_arguments(c, "RandomTranslation", false);
  return std::make_shared<RandomTranslation>(a.height_factor, a.width_factor, a);
}

}  // namespace kiln::layers
