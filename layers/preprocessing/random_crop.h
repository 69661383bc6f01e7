#pragma once
// keras.layers.RandomCrop: in training, a height x width window at a random place, the same for
// every image of the batch (Keras's choice); an input not larger than the target along both
// sides is cropped to the target's aspect ratio and resized instead. At inference, the largest
// centered window of the target's aspect ratio, resized to the target (smart_resize), as Keras
// documents it: Keras 3's code passes the input through unchanged there, which breaks any layer
// after it that was built for the target size.
#include <cstdint>
#include <optional>

#include "kiln/layers/layer.h"
#include "kiln/layers/random/seed_generator.h"

namespace kiln::layers {

struct RandomCropOptions {
  std::optional<int64_t> seed = std::nullopt;
  KILN_LAYER_ARGS_FIELDS
};

class RandomCrop : public Layer {
  KILN_LAYER_CLASS(RandomCrop)

 public:
  RandomCrop(int64_t height, int64_t width, RandomCropOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  Config get_config() const override;

 private:
  // The window at a random offset along `axis`: `size` rows (or columns) gathered from it.
  Tensor random_window(const Tensor& images, const Tensor& at, int64_t axis, int64_t size) const;
  // Keras's fallback: the aspect-ratio crop's corner, a target-sized slice from it, resized.
  Tensor fallback(const Tensor& images) const;

  int64_t height_, width_;
  RandomCropOptions options_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
