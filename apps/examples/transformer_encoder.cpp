#include "apps/examples/transformer_encoder.h"

#include <vector>

#include "kiln/layers/attention/multi_head_attention.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/merge/merge.h"
#include "kiln/layers/normalization/layer_normalization.h"

namespace kiln::examples {

using layers::KerasTensor;

namespace {

// Add(x, Dropout(update)) then LayerNormalization: the block's two residual joins.
KerasTensor residual(const KerasTensor& x, const KerasTensor& update, double dropout) {
  const KerasTensor dropped = layers::Dropout(dropout)(update);
  const KerasTensor sum = layers::Add()(std::vector{x, dropped})[0];
  return layers::LayerNormalization({.epsilon = 1e-6})(sum);
}

}  // namespace

KerasTensor transformer_encoder(const KerasTensor& x, const TransformerEncoderOptions& o) {
  const int64_t width = x.shape().dim(-1);
  const KerasTensor attended = layers::MultiHeadAttention(
      o.num_heads, o.key_dim,
      {.dropout = o.dropout, .use_causal_mask = o.use_causal_mask})(std::vector{x, x})[0];
  const KerasTensor mixed = residual(x, attended, o.dropout);
  const KerasTensor hidden = layers::Dense(o.ff_dim, {.activation = "relu"})(mixed);
  return residual(mixed, layers::Dense(width)(hidden), o.dropout);
}

}  // namespace kiln::examples
