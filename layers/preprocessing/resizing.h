#pragma once
// keras.layers.Resizing: images resized to height x width with tf.image.resize's arithmetic
// (ops::resize_images), after an optional centered crop (crop_to_aspect_ratio) or symmetric
// padding with fill_value (pad_to_aspect_ratio) to the target's aspect ratio. Outputs are floats
// in the compute dtype, integer images too.
#include <cstdint>
#include <string>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct ResizingOptions {
  std::string interpolation = "bilinear";  // nearest, bicubic, area, lanczos3, lanczos5
  bool crop_to_aspect_ratio = false;
  bool pad_to_aspect_ratio = false;
  double fill_value = 0.0;  // of the padding
  bool antialias = false;   // low-pass filter when downscaling (bilinear, bicubic, lanczos)
  KILN_LAYER_ARGS_FIELDS
};

class Resizing : public Layer {
  KILN_LAYER_CLASS(Resizing)

 public:
  Resizing(int64_t height, int64_t width, ResizingOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  // images padded symmetrically with fill_value to the target's aspect ratio (Keras's
  // arithmetic: the same padding on both sides, rounded down).
  Tensor pad_to_aspect_ratio(const Tensor& images) const;

  int64_t height_, width_;
  ResizingOptions options_;
};

}  // namespace kiln::layers
