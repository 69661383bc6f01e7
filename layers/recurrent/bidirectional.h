#pragma once
// keras.layers.Bidirectional: a recurrent layer run forwards and a copy of it run backwards
// (go_backwards flipped), their outputs merged (concat, sum, mul, ave, or none: both returned).
// With a mask the backward copy starts at each sequence's own last step, whether the padding is
// on the left or on the right, and its sequence output is turned back into input order.
//
//   auto bi = Bidirectional(LSTM(32, {.return_sequences = true}));
//
// Inputs: x, then optionally the forward layer's initial states followed by the backward
// layer's. Outputs: the merged output, then with return_state the forward states and the
// backward states.
#include <string>

#include "kiln/layers/layer.h"
#include "kiln/layers/recurrent/recurrent.h"

namespace kiln::layers {

struct BidirectionalOptions {
  std::string merge_mode = "concat";  // concat, sum, mul, ave, or "" (Keras's None)
  LayerPtr backward_layer = nullptr;  // default: the layer's config with go_backwards flipped
  KILN_LAYER_ARGS_FIELDS
};

class Bidirectional : public Layer {
  KILN_LAYER_CLASS(Bidirectional)

 public:
  explicit Bidirectional(LayerRef layer, BidirectionalOptions options = {});
  static LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  Config get_config() const override;
  std::vector<WeightGroup> weight_groups() const override;

  const Recurrent& forward_layer() const { return *forward_; }
  const Recurrent& backward_layer() const { return *backward_; }

 private:
  std::shared_ptr<Recurrent> forward_;
  std::shared_ptr<Recurrent> backward_;
  std::string merge_mode_;
};

}  // namespace kiln::layers
