#pragma once
// keras.layers.UpSampling2D with interpolation "nearest": each row repeated size[0] times and
// each column size[1] times.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct UpSampling2DOptions {
  std::string interpolation = "nearest";  // the only one kiln implements
  KILN_LAYER_ARGS_FIELDS
};

class UpSampling2D : public Layer {
  KILN_LAYER_CLASS(UpSampling2D)

 public:
  explicit UpSampling2D(std::vector<int64_t> size = {2, 2}, UpSampling2DOptions options = {});
  static LayerPtr from_config(const Config& config);
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  std::vector<int64_t> size_;
  UpSampling2DOptions options_;
};

}  // namespace kiln::layers
