#include "kiln/layers/preprocessing/random_zoom.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::layers {

RandomZoom::RandomZoom(Config height_factor, Config width_factor, RandomAffineOptions options)
    : RandomAffineByAxis(std::move(height_factor), std::move(width_factor), std::move(options),
                         "RandomZoom", true) {}

Tensor RandomZoom::draw_transforms(const Tensor& images) {
  const Tensor zoom_y = uniform_per_image(images, 1 + height_.first, 1 + height_.second);
  const Tensor zoom_x = width_factor_.is_null()
                            ? zoom_y
                            : uniform_per_image(images, 1 + width_.first, 1 + width_.second);
  const double cx = (static_cast<double>(images.dim(2)) - 1) / 2;
  const double cy = (static_cast<double>(images.dim(1)) - 1) / 2;
  const Tensor zero = ops::zeros_like(zoom_x);
  return ops::concat({zoom_x, zero, (1.0 - zoom_x) * cx, zero, zoom_y, (1.0 - zoom_y) * cy}, 1);
}

LayerPtr RandomZoom::from_config(const Config& c) {
  const Arguments a = read_arguments(c, "RandomZoom", true);
  return std::make_shared<RandomZoom>(a.height_factor, a.width_factor, a);
}

}  // namespace kiln::layers
