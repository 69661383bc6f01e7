#pragma once
// keras.Sequential: a stack of single-input, single-output layers. With an input shape (an
// Input(...) first in the list, or input_shape on the first layer) it builds at once, so
// summary() shows every output shape and weights exist before fit.
#include <optional>
#include <string>
#include <vector>

#include "kiln/training/model/model.h"

namespace kiln {

class Sequential : public Model {
  KILN_LAYER_CLASS(Sequential)

 public:
  explicit Sequential(std::vector<layers::LayerRef> layers = {}, std::string name = "");
  static layers::LayerPtr from_config(const Config& config);

  void add(const layers::LayerRef& layer);
  void pop();
  std::vector<layers::LayerPtr> layers() const override { return layers_; }
  std::vector<TensorMeta> input_specs() const override;
  std::vector<TensorMeta> declared_input_specs() const override;
  // The Input's name, or Keras's "input_layer" for an input_shape or the first call's shape.
  std::string input_name(size_t i) const override;
  // The first layer, when the input is a string.
  std::vector<std::shared_ptr<layers::StringLayer>> string_readers() const override;

  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs,
                           const layers::CallContext& context) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  // {"name", "trainable", "dtype", "layers": [InputLayer if given, ...], "build_input_shape"},
  // as Keras writes it.
  Config get_config() const override;

 protected:
  std::vector<SummaryRow> summary_rows() const override;
  // Also forgets an input shape taken from the trial's shapes (not one an Input or input_shape
  // gave).
  void unbuild(size_t kept) override;

 private:
  // Runs the layers symbolically from the input spec, building them and recording shapes.
  void build_symbolically();
  // The output spec of `layer`, added last, from the one before it (building the layer).
  void extend_symbolically(layers::Layer& layer);

  std::vector<layers::LayerPtr> layers_;
  layers::LayerPtr input_layer_;  // the Input given first, if any (its config leads "layers")
  std::optional<TensorMeta> input_spec_;
  bool input_declared_ = false;  // input_spec_ came from an Input or input_shape, not a call
  std::vector<TensorMeta> output_specs_;  // per layer, once built
};

}  // namespace kiln
