#pragma once
// Keras's merge layers: one output from a list of inputs, called on a list
// (`Add()({a, b})`). The elementwise ones (Add, Subtract, Multiply, Average, Maximum) broadcast
// like the ops once lower-rank inputs gain axes after the batch axis; their output mask, when
// every input has one, is the logical or of the input masks (Keras 3's rule: a step is kept
// where any input keeps it).
#include <vector>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct MergeOptions {
  KILN_LAYER_ARGS_FIELDS
};

class Merge : public Layer {
 public:
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;

 protected:
  explicit Merge(LayerArgs args) : Layer(std::move(args)) { supports_masking_ = true; }
  // The inputs combined; there is at least one.
  virtual Tensor merge(const std::vector<Tensor>& inputs) const = 0;
  static MergeOptions options_of(const Config& c, std::string_view class_name);
};

class Add : public Merge {
  KILN_LAYER_CLASS(Add)

 public:
  explicit Add(MergeOptions options = {}) : Merge(options.layer_args()) {}
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor merge(const std::vector<Tensor>& inputs) const override;
};

// Exactly two inputs: the first minus the second.
class Subtract : public Merge {
  KILN_LAYER_CLASS(Subtract)

 public:
  explicit Subtract(MergeOptions options = {}) : Merge(options.layer_args()) {}
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor merge(const std::vector<Tensor>& inputs) const override;
};

class Multiply : public Merge {
  KILN_LAYER_CLASS(Multiply)

 public:
  explicit Multiply(MergeOptions options = {}) : Merge(options.layer_args()) {}
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor merge(const std::vector<Tensor>& inputs) const override;
};

class Average : public Merge {
  KILN_LAYER_CLASS(Average)

 public:
  explicit Average(MergeOptions options = {}) : Merge(options.layer_args()) {}
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor merge(const std::vector<Tensor>& inputs) const override;
};

class Maximum : public Merge {
  KILN_LAYER_CLASS(Maximum)

 public:
  explicit Maximum(MergeOptions options = {}) : Merge(options.layer_args()) {}
  static LayerPtr from_config(const Config& config);

 protected:
  Tensor merge(const std::vector<Tensor>& inputs) const override;
};

}  // namespace kiln::layers
