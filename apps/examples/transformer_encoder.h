#pragma once
// A Transformer encoder block built from Keras layers with the functional API (no positional
// embedding: the block sees a set of steps; order enters only through the data):
//
//   x -> MultiHeadAttention(x, x) -> Dropout -> Add(x, .) -> LayerNormalization
//     -> Dense(ff_dim, relu) -> Dense(width) -> Dropout -> Add -> LayerNormalization
//
// A padding mask on x (Embedding(mask_zero)) keeps padded keys out of the attention and follows
// the steps through, so a masked pooling after the block ignores the padding.
#include <cstdint>

#include "kiln/layers/keras_tensor.h"

namespace kiln::examples {

struct TransformerEncoderOptions {
  int64_t num_heads = 4;
  int64_t key_dim = 16;
  int64_t ff_dim = 128;
  double dropout = 0.1;
  bool use_causal_mask = false;
};

// The block applied to x [batch, time, width]; the output has x's shape and mask.
layers::KerasTensor transformer_encoder(const layers::KerasTensor& x,
                                        const TransformerEncoderOptions& options = {});

}  // namespace kiln::examples
