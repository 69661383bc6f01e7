#pragma once
// keras.layers.ZeroPadding2D: zero rows above and below, zero columns left and right of each
// NHWC image.
#include <cstdint>
#include <utility>
#include <vector>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct ZeroPadding2DOptions {
  KILN_LAYER_ARGS_FIELDS
};

class ZeroPadding2D : public Layer {
  KILN_LAYER_CLASS(ZeroPadding2D)

 public:
  // {{top, bottom}, {left, right}}.
  explicit ZeroPadding2D(std::vector<std::pair<int64_t, int64_t>> padding = {{1, 1}, {1, 1}},
                         ZeroPadding2DOptions options = {});
  static LayerPtr from_config(const Config& config);
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  std::vector<std::pair<int64_t, int64_t>> padding_;
};

}  // namespace kiln::layers
