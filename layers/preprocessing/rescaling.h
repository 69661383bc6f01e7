#pragma once
// keras.layers.Rescaling: inputs * scale + offset, in the layer's compute dtype (images read as
// 0..255 to 0..1 with scale 1/255, or to -1..1 with scale 1/127.5 and offset -1). scale and offset
// are numbers, or lists that apply along the last axis (one per channel).
#include <vector>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct RescalingOptions {
  KILN_LAYER_ARGS_FIELDS
};

class Rescaling : public Layer {
  KILN_LAYER_CLASS(Rescaling)

 public:
  explicit Rescaling(std::vector<double> scale, std::vector<double> offset = {0.0},
                     RescalingOptions options = {});
  explicit Rescaling(double scale, double offset = 0.0, RescalingOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  std::vector<double> scale_, offset_;
};

}  // namespace kiln::layers
