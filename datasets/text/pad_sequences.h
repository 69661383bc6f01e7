#pragma once
// Keras's pad_sequences: a list of variable-length sequences to one [n, maxlen, ...] tensor.
#include <cstdint>
#include <span>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

enum class PadSide { pre, post };

struct PadSequencesOptions {
  int64_t maxlen = -1;                // -1: the longest sequence
  PadSide padding = PadSide::pre;     // where the padding goes
  PadSide truncating = PadSide::pre;  // which end of a longer sequence is cut off
  double value = 0;                   // the padding value
  DType dtype = DType::i32;
};

// Each sequence is [length, features...] with the same features (and any dtype convertible to
// options.dtype); the result is [sequences.size(), maxlen, features...].
Tensor pad_sequences(std::span<const Tensor> sequences, const PadSequencesOptions& options = {});
// Integer token sequences (Keras's usual input): the result is [sequences.size(), maxlen].
Tensor pad_sequences(const std::vector<std::vector<int64_t>>& sequences,
                     const PadSequencesOptions& options = {});

}  // namespace kiln::datasets
