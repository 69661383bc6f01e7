#pragma once
// Custom parts written in C++ and registered by name, then used like the built-ins (in C++, in
// model configs and in YAML run files):
//   activation "squareplus"                 (x + sqrt(x^2 + 4)) / 2, a smooth ReLU (So, 2022)
//   loss "sparse_focal_crossentropy"        crossentropy scaled by (1 - p_true)^2 (Lin et al.)
//   layer ResidualDense {activation}        x + activation(x W + b)
#include <string>

#include "kiln/layers/layer.h"

namespace kiln::examples {

// Registers the three (once; later calls do nothing).
void register_custom_parts();

// x + activation(x W + b): a dense block with a skip connection, its width that of its input.
class ResidualDense : public layers::Layer {
  KILN_LAYER_CLASS(ResidualDense)

 public:
  explicit ResidualDense(std::string activation = "relu", layers::LayerArgs args = {});
  static layers::LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& in, const layers::CallContext&) override;
  Config get_config() const override;

 private:
  std::string activation_name_;
  Variable kernel_;
  Variable bias_;
};

}  // namespace kiln::examples
