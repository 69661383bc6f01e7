#pragma once
// keras.layers.RandomRotation: in training, each image turned about its center by an angle drawn
// uniformly from [lower, upper] turns (factor f: [-f, f]; 0.25 is a quarter turn), filled and
// interpolated as random_affine.h says; at inference the identity.
#include <utility>

#include "kiln/layers/preprocessing/random_affine.h"

namespace kiln::layers {

class RandomRotation : public RandomAffine {
  KILN_LAYER_CLASS(RandomRotation)

 public:
  RandomRotation(std::pair<double, double> factor, RandomAffineOptions options = {});
  explicit RandomRotation(double factor, RandomAffineOptions options = {});
  static LayerPtr from_config(const Config& config);
  Config get_config() const override;

 protected:
  Tensor draw_transforms(const Tensor& images) override;

 private:
  std::pair<double, double> factor_;
};

}  // namespace kiln::layers
