#include "kiln/layers/preprocessing/random_rotation.h"

#include <numbers>

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {
namespace {

constexpr std::pair<double, double> kBounds{-1.0, 1.0};

}  // namespace

RandomRotation::RandomRotation(std::pair<double, double> factor, RandomAffineOptions options)
    : RandomAffine(std::move(options), "RandomRotation"), factor_(factor) {}

RandomRotation::RandomRotation(double factor, RandomAffineOptions options)
    : RandomRotation(read_factor(Config(factor), kBounds, "RandomRotation"), std::move(options)) {}

Tensor RandomRotation::draw_transforms(const Tensor& images) {
  // Keras's rotation about ((width - 1) / 2, (height - 1) / 2), from the output pixel to the
  // input one.
  // Degrees, then radians, in float32, as Keras computes the angle.
  const Tensor angle = uniform_per_image(images, factor_.first * 360, factor_.second * 360) *
                       static_cast<double>(static_cast<float>(std::numbers::pi / 180.0));
  const double cx = 0.5 * static_cast<double>(images.dim(2) - 1);
  const double cy = 0.5 * static_cast<double>(images.dim(1) - 1);
  // cos and sin correctly rounded to float32 (through float64), as TensorFlow's are: a pixel
  // that lands on the image's edge must land on the same side of it.
  const Tensor wide = ops::cast(angle, DType::f64);
  const Tensor cos = ops::cast(ops::cos(wide), DType::f32);
  const Tensor sin = ops::cast(ops::sin(wide), DType::f32);
  const Tensor a0 = cos, a1 = -sin, b0 = sin, b1 = cos;
  return ops::concat({a0, a1, cx - a0 * cx - a1 * cy, b0, b1, cy - b0 * cx - b1 * cy}, 1);
}

namespace {

struct Arguments : RandomAffineOptions {
  std::pair<double, double> factor;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(factor_field<Arguments>(kBounds, "RandomRotation"))}, random_affine_fields());
  return table;
}

}  // namespace

Config RandomRotation::get_config() const {
  Arguments a{options_};
  a.factor = factor_;
  return write_fields(a, fields(), Layer::get_config());
}

LayerPtr RandomRotation::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "RandomRotation");
  return std::make_shared<RandomRotation>(a.factor, a);
}

}  // namespace kiln::layers
