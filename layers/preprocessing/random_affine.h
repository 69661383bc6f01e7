#pragma once
// What RandomRotation, RandomTranslation and RandomZoom share: in training, each image moved by
// an affine map drawn for it (affine_transform.h), with Keras's fill_mode, interpolation and
// fill_value; at inference the identity. The maps come from a seed variable, as Dropout's masks
// do, so a traced step draws new ones every call without retracing.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "kiln/framework/core/config_fields.h"
#include "kiln/layers/layer.h"
#include "kiln/layers/preprocessing/affine_transform.h"
#include "kiln/layers/random/seed_generator.h"

namespace kiln::layers {

struct RandomAffineOptions {
  std::string fill_mode = "reflect";       // wrap, constant, nearest
  std::string interpolation = "bilinear";  // nearest
  std::optional<int64_t> seed = std::nullopt;
  double fill_value = 0.0;  // constant filling's value
  KILN_LAYER_ARGS_FIELDS
};

class RandomAffine : public Layer {
 public:
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;

 protected:
  RandomAffine(RandomAffineOptions options, const std::string& class_name);
  // Each image's map, [batch, 6] float32 (a0, a1, a2, b0, b1, b2), for images [batch, h, w, c].
  virtual Tensor draw_transforms(const Tensor& images) = 0;
  // One float32 value per image, uniform in [low, high): [batch, 1].
  Tensor uniform_per_image(const Tensor& images, double low, double high);
  RandomAffineOptions options_;

 private:
  SeedGenerator seed_generator_;
  std::string class_name_;
};

// RandomTranslation's and RandomZoom's arguments: a factor per axis, each a number f ([-f, f])
// or a pair [lower, upper] within [-1, 1], kept as given for the config; width_factor may be
// null where `width_optional` (RandomZoom: the height's draw serves both).
class RandomAffineByAxis : public RandomAffine {
 public:
  struct Arguments : RandomAffineOptions {
    Config height_factor, width_factor;
  };
  Config get_config() const override;

 protected:
  RandomAffineByAxis(Config height_factor, Config width_factor, RandomAffineOptions options,
                     const std::string& class_name, bool width_optional);
  static Arguments read_arguments(const Config& config, const std::string& class_name,
                                  bool width_optional);

  Config height_factor_, width_factor_;
  std::pair<double, double> height_, width_;  // width_: height_'s when width_factor_ is null

 private:
  bool width_optional_;
};

// The options' keys (with Keras's data_format), for the subclasses' tables.
const FieldTable<RandomAffineOptions>& random_affine_fields();

// Keras's RandomTranslation and RandomZoom factors: a number f, read as [-f, f], or a pair
// [lower, upper] (sorted), each within [-1, 1]; refused naming the key and the layer.
std::pair<double, double> affine_factor(const Config& factor, std::string_view key,
                                        std::string_view layer);

}  // namespace kiln::layers
