#pragma once
// keras.layers.Concatenate: the inputs joined along `axis` (default the last); other dims must
// agree. The output mask follows Keras: each input's mask (all-true for an unmasked input)
// broadcast over its features, concatenated along `axis`, then reduced with "any" over the
// last axis, which is the concatenation of the masks when joining steps and their union when
// joining features.
#include <cstdint>

#include "kiln/layers/merge/merge.h"

namespace kiln::layers {

struct ConcatenateOptions {
  int64_t axis = -1;
  KILN_LAYER_ARGS_FIELDS
};

class Concatenate : public Merge {
  KILN_LAYER_CLASS(Concatenate)

 public:
  explicit Concatenate(ConcatenateOptions options = {});
  static LayerPtr from_config(const Config& config);
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  Config get_config() const override;

 protected:
  Tensor merge(const std::vector<Tensor>& inputs) const override;

 private:
  ConcatenateOptions options_;
};

}  // namespace kiln::layers
