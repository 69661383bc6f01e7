#pragma once
// keras.layers.Normalization: (x - mean) / max(sqrt(variance), 1e-7) with a mean and variance
// per position of the kept `axis` (the last by default; empty: one over everything), or the
// inverse (invert). The statistics are given (mean, variance) or adapted from data: then they
// are the layer's non-trainable weights mean, variance and count (Keras's, count kept at zero as
// Keras does), saved and loaded with the model.
#include <cstdint>
#include <optional>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/layers/preprocessing/adaptable.h"

namespace kiln::layers {

struct NormalizationOptions {
  std::vector<int64_t> axis = {-1};
  // A number for every kept position, or one per position of the kept axes (in order).
  std::optional<std::vector<double>> mean = std::nullopt, variance = std::nullopt;
  bool invert = false;
  KILN_LAYER_ARGS_FIELDS
};

class Normalization : public Layer, public Adaptable {
  KILN_LAYER_CLASS(Normalization)

 public:
  explicit Normalization(NormalizationOptions options = {});
  static LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

  bool needs_adapt() const override { return !options_.mean.has_value(); }
  using Adaptable::adapt;
  // Keras's streaming combination of each batch's mean and variance, in float64. Builds the
  // layer from the first batch's shape when it is not built.
  void adapt(const Batches& next) override;

 private:
  // The statistics in the input's rank, 1 along the reduced axes, in `dtype`.
  Tensor broadcast_statistic(const Tensor& values, DType dtype) const;

  NormalizationOptions options_;
  int rank_ = 0;
  std::vector<int64_t> keep_;  // sorted, non-negative
  Shape statistics_shape_;     // the kept axes' sizes
  Variable mean_, variance_;   // adapted (no mean given)
};

}  // namespace kiln::layers
