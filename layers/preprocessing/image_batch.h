#pragma once
// What Keras's image preprocessing layers share: images as a batch [batch, height, width,
// channels] or one image [height, width, channels] (channels_last, the only data_format kiln
// has), the centered crop smart_resize takes, per-image random draws, and the config keys.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/framework/core/config_fields.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::layers {

// x as a batch, in `dtype` (integer images cast), remembering whether it was one image.
class ImageBatch {
 public:
  ImageBatch(const Tensor& x, DType dtype, std::string_view layer);
  const Tensor& images() const { return images_; }
  int64_t height() const { return images_.dim(1); }
  int64_t width() const { return images_.dim(2); }
  // y back in x's form (one image again when x was one).
  Tensor restore(const Tensor& y) const;

 private:
  Tensor images_;
  bool unbatched_;
};

// The centered window of images [batch, h, w, c] with the aspect ratio of height:width, with
// Keras's arithmetic (smart_resize and crop_to_aspect_ratio): images itself when it has it.
Tensor crop_to_aspect_ratio(const Tensor& images, int64_t height, int64_t width);

// Keras's smart_resize: that crop, then resized to height x width (bilinear).
Tensor smart_resize(const Tensor& images, int64_t height, int64_t width);

// One value per image, uniform in [low, high): [batch, 1, 1, 1] in images' dtype.
Tensor uniform_per_image(const Tensor& images, const Tensor& seed, double low, double high);

// Keras's data_format key: channels_last only.
template <typename Options>
ConfigField<Options> data_format_field() {
  return fixed_field<Options>("data_format", Config("channels_last"),
                              "kiln's images are [batch, height, width, channels]");
}

// Keras's factor argument of the random image layers: a number f, read as [-f, f] within
// `bounds` (clipped below at its lower end), or a pair [lower, upper] (sorted). Refused outside
// the bounds, naming the layer.
std::pair<double, double> read_factor(const Config& factor, std::pair<double, double> bounds,
                                      std::string_view layer);

// The factor key of a class whose Arguments hold `std::pair<double, double> factor`, read by
// read_factor and written as Keras writes it, [lower, upper].
template <typename Arguments>
ConfigField<Arguments> factor_field(std::pair<double, double> bounds, std::string layer) {
  return field(
      "factor", &Arguments::factor,
      [bounds, layer](const Config& c) { return read_factor(c, bounds, layer); },
      [](const std::pair<double, double>& f) {
        return Config(std::vector<double>{f.first, f.second});
      });
}

// A random layer's seed variable's name: "random_flip_seed" for RandomFlip.
std::string seed_name_of(std::string_view class_name);

// Keras's value_range: [low, high], put in order; anything else is refused naming the layer.
void check_value_range(std::vector<double>& value_range, std::string_view layer);

}  // namespace kiln::layers
