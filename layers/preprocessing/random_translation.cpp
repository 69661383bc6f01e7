#include "kiln/layers/preprocessing/random_translation.h"

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

RandomTranslation::RandomTranslation(Config height_factor, Config width_factor,
                                     RandomAffineOptions options)
    : RandomAffine(std::move(options), "RandomTranslation"),
      height_factor_(std::move(height_factor)),
      width_factor_(std::move(width_factor)),
      height_(affine_factor(height_factor_, "height_factor", "RandomTranslation")),
      width_(affine_factor(width_factor_, "width_factor", "RandomTranslation")) {}

Tensor RandomTranslation::draw_transforms(const Tensor& images) {
  const Tensor dy =
      uniform_per_image(images, height_.first, height_.second) * static_cast<double>(images.dim(1));
  const Tensor dx =
      uniform_per_image(images, width_.first, width_.second) * static_cast<double>(images.dim(2));
  const Tensor zero = ops::zeros_like(dx), one = ops::ones_like(dx);
  return ops::concat({one, zero, -dx, zero, one, -dy}, 1);
}

namespace {

struct Arguments : RandomAffineOptions {
  Config height_factor, width_factor;
};

const FieldTable<Arguments>& fields() {
  const auto as_given = [](const Config& c) { return c; };
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("height_factor", &Arguments::height_factor, as_given, as_given)),
       required(field("width_factor", &Arguments::width_factor, as_given, as_given))},
      random_affine_fields());
  return table;
}

}  // namespace

Config RandomTranslation::get_config() const {
  Arguments a{options_};
  a.height_factor = height_factor_;
  a.width_factor = width_factor_;
  return write_fields(a, fields(), Layer::get_config());
}

LayerPtr RandomTranslation::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "RandomTranslation");
  return std::make_shared<RandomTranslation>(a.height_factor, a.width_factor, a);
}

}  // namespace kiln::layers
