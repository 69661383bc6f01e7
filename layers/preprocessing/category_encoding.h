#pragma once
// keras.layers.CategoryEncoding: integer tokens in [0, num_tokens) as one_hot vectors (per
// token; a last axis of 1 is dropped first), or per sample (the last axis; a 1-D input is one
// sample, as in Keras) as multi_hot (which tokens occur) or count (how often).
// Outputs are floats in the compute dtype.
#include <cstdint>
#include <string>

#include "kiln/layers/layer.h"

namespace kiln::layers {

// Keras's encode_categorical_inputs: tokens encoded as `output_mode` ("one_hot", "multi_hot",
// "count"; "int" casts) over `depth` tokens, in `dtype`. `layer` names errors.
Tensor encode_categories(const Tensor& tokens, int64_t depth, const std::string& output_mode,
                         DType dtype, const std::string& layer);
// The shape encode_categories gives `tokens` of this shape (dims may be unknown): one_hot adds a
// depth axis (after dropping a last axis of 1), the others replace the last axis by it.
Shape encoded_shape(const Shape& tokens, int64_t depth, const std::string& output_mode);
// "int", "one_hot", "multi_hot" or "count"; others are refused naming the layer. int only where
// `int_allowed`.
void check_output_mode(const std::string& output_mode, bool int_allowed, const std::string& layer);

struct CategoryEncodingOptions {
  std::string output_mode = "multi_hot";  // one_hot, count
  KILN_LAYER_ARGS_FIELDS
};

class CategoryEncoding : public Layer {
  KILN_LAYER_CLASS(CategoryEncoding)

 public:
  explicit CategoryEncoding(int64_t num_tokens, CategoryEncodingOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  int64_t num_tokens_;
  CategoryEncodingOptions options_;
};

}  // namespace kiln::layers
