#include "kiln/layers/preprocessing/random_zoom.h"

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

RandomZoom::RandomZoom(Config height_factor, Config width_factor, RandomAffineOptions options)
    : RandomAffine(std::move(options), "RandomZoom"),
      height_factor_(std::move(height_factor)),
      width_factor_(std::move(width_factor)),
      height_(affine_factor(height_factor_, "height_factor", "RandomZoom")),
      width_(width_factor_.is_null() ? height_
                                     : affine_factor(width_factor_, "width_factor", "RandomZoom")) {
}

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

namespace {

struct Arguments : RandomAffineOptions {
  Config height_factor, width_factor;
};

const FieldTable<Arguments>& fields() {
  const auto as_given = [](const Config& c) { return c; };
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("height_factor", &Arguments::height_factor, as_given, as_given)),
       nullable(field("width_factor", &Arguments::width_factor, as_given, as_given))},
      random_affine_fields());
  return table;
}

}  // namespace

Config RandomZoom::get_config() const {
  Arguments a{options_};
  a.height_factor = height_factor_;
  a.width_factor = width_factor_;
  return write_fields(a, fields(), Layer::get_config());
}

LayerPtr RandomZoom::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "RandomZoom");
  return std::make_shared<RandomZoom>(a.height_factor, a.width_factor, a);
}

}  // namespace kiln::layers
