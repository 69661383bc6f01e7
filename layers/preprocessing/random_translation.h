#pragma once
// keras.layers.RandomTranslation: in training, each image shifted by fractions of its height and
// width drawn uniformly from height_factor's and width_factor's ranges (f: [-f, f]; a pair: that
// range; positive moves down and right), filled and interpolated as random_affine.h says; at
// inference the identity.
#include "kiln/layers/preprocessing/random_affine.h"

namespace kiln::layers {

class RandomTranslation : public RandomAffineByAxis {
  KILN_LAYER_CLASS(RandomTranslation)

 public:
  // The factors as Keras takes them: a number or a pair.
  RandomTranslation(Config height_factor, Config width_factor, RandomAffineOptions options = {});
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor draw_transforms(const Tensor& images) override;
};

}  // namespace kiln::layers
