#pragma once
// keras.layers.Discretization: each value's bin among bin_boundaries (bin i holds
// [boundaries[i - 1], boundaries[i]), the first from -inf, the last to +inf), as an int64 index
// or encoded as CategoryEncoding does (one_hot, multi_hot, count) over len(boundaries) + 1 bins.
// Boundaries are given, or adapt finds num_bins - 1 of them at the data's approximate quantiles
// (quantile_summary.h); the config then holds both, as Keras's does.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/layers/preprocessing/adaptable.h"

namespace kiln::layers {

struct DiscretizationOptions {
  std::optional<int64_t> num_bins = std::nullopt;  // for adapt
  std::string output_mode = "int";                 // one_hot, multi_hot, count
  double epsilon = 0.01;                           // adapt's quantile error
  KILN_LAYER_ARGS_FIELDS
};

class Discretization : public Layer, public Adaptable {
  KILN_LAYER_CLASS(Discretization)

 public:
  // Empty boundaries, with options.num_bins, are adapt's to find.
  explicit Discretization(std::vector<double> bin_boundaries, DiscretizationOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  std::vector<TensorMeta> compute_output_spec(const std::vector<TensorMeta>& inputs) override;
  Config get_config() const override;

  bool needs_adapt() const override { return boundaries_.empty(); }
  using Adaptable::adapt;
  void adapt(const Batches& next) override;
  const std::vector<double>& bin_boundaries() const { return boundaries_; }

 private:
  std::vector<double> boundaries_;
  DiscretizationOptions options_;
};

}  // namespace kiln::layers
