#pragma once
// keras.layers.Permute: reorders the non-batch axes of each sample; dims counts from 1 (the
// batch axis stays first), so Permute({2, 1}) swaps the two axes of [batch, a, b].
#include <cstdint>
#include <vector>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct PermuteOptions {
  KILN_LAYER_ARGS_FIELDS
};

class Permute : public Layer {
  KILN_LAYER_CLASS(Permute)

 public:
  explicit Permute(std::vector<int64_t> dims, PermuteOptions options = {});
  static LayerPtr from_config(const Config& config);
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  std::vector<int64_t> dims_;
};

}  // namespace kiln::layers
