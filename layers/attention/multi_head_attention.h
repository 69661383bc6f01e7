#pragma once
// keras.layers.MultiHeadAttention: scaled dot-product attention over num_heads projections of
// the query, key and value, then an output projection back to the query's width (or
// output_shape). Weights and their shapes follow Keras (query/key/value kernels [dim, heads,
// key_dim], biases [heads, key_dim], output kernel [heads, value_dim, out]).
//
// Inputs: query [batch, Tq, dim], value [batch, Tv, dim], optionally key (default: value) and
// an attention_mask [batch, Tq, Tv] (true = attend). Keras masks on the query, value and key
// (Embedding(mask_zero), Masking) are combined with it, and use_causal_mask lets step i attend to
// steps <= i only (Keras passes it per call; here the layer holds it). Padded keys get no
// attention, so padding a sequence changes no unpadded step. The output mask is the query's.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/layers/layer.h"
#include "kiln/layers/random/seed_generator.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

struct MultiHeadAttentionOptions {
  int64_t value_dim = 0;  // 0: key_dim
  double dropout = 0;     // on the attention probabilities, in training
  bool use_bias = true;
  int64_t output_shape = 0;  // 0: the query's last dim
  bool use_causal_mask = false;
  // The axes attended over: only the time axis ({1}) of [batch, time, features] inputs, which
  // null (Keras's default) also means; kept as given so configs round-trip.
  std::optional<std::vector<int64_t>> attention_axes = std::nullopt;
  initializers::InitializerArg kernel_initializer = "glorot_uniform";
  initializers::InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  std::optional<int64_t> seed = std::nullopt;
  KILN_LAYER_ARGS_FIELDS
};

class MultiHeadAttention : public Layer {
  KILN_LAYER_CLASS(MultiHeadAttention)

 public:
  MultiHeadAttention(int64_t num_heads, int64_t key_dim, MultiHeadAttentionOptions options = {});
  static LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  Config get_config() const override;
  // As Keras's EinsumDense sublayers: query_dense, key_dense, value_dense, output_dense.
  std::vector<WeightGroup> weight_groups() const override;

 private:
  struct Projection {
    Variable kernel;
    Variable bias;
  };
  Projection add_projection(const std::string& name, const Shape& kernel, const Shape& bias);
  Tensor project(const Projection& p, const Tensor& x) const;
  Tensor attention_mask(const std::vector<Tensor>& inputs, const CallContext& context,
                        const Tensor& scores) const;

  int64_t num_heads_;
  int64_t key_dim_;
  MultiHeadAttentionOptions options_;
  Projection query_, key_, value_, output_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
