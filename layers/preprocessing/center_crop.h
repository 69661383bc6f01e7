#pragma once
// keras.layers.CenterCrop: the centered height x width window of each image; an image smaller
// than that along either side is cropped to the target's aspect ratio and resized to it
// (bilinear), as Keras's smart_resize does.
#include <cstdint>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct CenterCropOptions {
  KILN_LAYER_ARGS_FIELDS
};

class CenterCrop : public Layer {
  KILN_LAYER_CLASS(CenterCrop)

 public:
  CenterCrop(int64_t height, int64_t width, CenterCropOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  int64_t height_, width_;
};

}  // namespace kiln::layers
