#pragma once
// keras.layers.Embedding: integer ids [batch, ...] -> rows of an [input_dim, output_dim] table,
// [batch, ..., output_dim]. With mask_zero, id 0 is padding: the output mask is ids != 0.
#include <cstdint>
#include <string>

#include "kiln/layers/layer.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

struct EmbeddingOptions {
  // Keras's default "uniform" is RandomUniform(-0.05, 0.05); both names are accepted.
  initializers::InitializerArg embeddings_initializer = "random_uniform";
  regularizers::RegularizerPtr embeddings_regularizer = nullptr;
  constraints::ConstraintPtr embeddings_constraint = nullptr;
  bool mask_zero = false;
  KILN_LAYER_ARGS_FIELDS
};

class Embedding : public Layer {
  KILN_LAYER_CLASS(Embedding)

 public:
  Embedding(int64_t input_dim, int64_t output_dim, EmbeddingOptions options = {});
  static LayerPtr from_config(const Config& config);

  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  Config get_config() const override;

  const Variable& embeddings() const { return embeddings_; }

 private:
  int64_t input_dim_;
  int64_t output_dim_;
  EmbeddingOptions options_;
  Variable embeddings_;
};

}  // namespace kiln::layers
