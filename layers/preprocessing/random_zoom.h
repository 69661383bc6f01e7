#pragma once
// keras.layers.RandomZoom: in training, each image scaled about its center by 1 + a factor drawn
// from height_factor's range for the height and width_factor's for the width (null: the
// height's draw, keeping the aspect ratio); a positive factor zooms out, a negative one in.
// Filled and interpolated as random_affine.h says; at inference the identity.
#include "kiln/layers/preprocessing/random_affine.h"

namespace kiln::layers {

class RandomZoom : public RandomAffineByAxis {
  KILN_LAYER_CLASS(RandomZoom)

 public:
  // The factors as Keras takes them: a number or a pair; width_factor may be null.
  explicit RandomZoom(Config height_factor, Config width_factor = Config(),
                      RandomAffineOptions options = {});
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor draw_transforms(const Tensor& images) override;
};

}  // namespace kiln::layers
