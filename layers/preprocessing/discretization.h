#pragma once
// keras.layers.Discretization: each value's bin among bin_boundaries (bin i holds
// [boundaries[i - 1], boundaries[i]), the first from -inf, the last to +inf), as an int64 index
// or encoded as CategoryEncoding does (one_hot, multi_hot, count) over len(boundaries) + 1 bins.
// Boundaries are given; Keras's adapt (num_bins from approximate quantiles) is not kiln's yet,
// and is refused naming bin_boundaries.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct DiscretizationOptions {
  std::string output_mode = "int";  // one_hot, multi_hot, count
  double epsilon = 0.01;            // Keras's adapt's quantile error: kept for the config
  KILN_LAYER_ARGS_FIELDS
};

class Discretization : public Layer {
  KILN_LAYER_CLASS(Discretization)

 public:
  explicit Discretization(std::vector<double> bin_boundaries, DiscretizationOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  std::vector<double> boundaries_;
  DiscretizationOptions options_;
};

}  // namespace kiln::layers
