#pragma once
// keras.layers.RepeatVector: [batch, features] -> [batch, n, features], each sample repeated n
// times (feeds one vector to every step of a sequence model).
#include <cstdint>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct RepeatVectorOptions {
  KILN_LAYER_ARGS_FIELDS
};

class RepeatVector : public Layer {
  KILN_LAYER_CLASS(RepeatVector)

 public:
  explicit RepeatVector(int64_t n, RepeatVectorOptions options = {});
  static LayerPtr from_config(const Config& config);
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  int64_t n_;
};

}  // namespace kiln::layers
