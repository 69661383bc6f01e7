#pragma once
// Recurrent layers as one op over the whole sequence: the time loop runs inside the kernel, to
// the time length the tensors have when the op runs, so a batch of a new length needs no new
// trace where the time dim is unknown. The layers (layers/recurrent/) build on this.
#include "kiln/framework/ops/rnn_cell.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::ops {

struct RnnSequenceArgs {
  rnn::Cell cell = rnn::Cell::lstm;
  rnn::Activation activation = rnn::Activation::tanh;
  rnn::Activation recurrent_activation = rnn::Activation::sigmoid;  // GRU and LSTM gates
  bool reverse = false;      // steps run from the last time index to the first
  Tensor recurrent_bias;     // GRU only: [gates * units], added to h_prev . U before the reset gate
  Tensor mask;               // optional bool [batch, time]: false steps carry the states through
  Tensor recurrent_dropout;  // optional [batch, units]: multiplies h_prev before h_prev . U
};

// projected: [batch, time, gates * units], the input projection x . W + b of every step;
// initial_states: [batch or 1, states, units] (h, then c for an LSTM); recurrent_kernel:
// [units, gates * units]. Returns the record [batch, time + 1, record_width] (rnn_cell.h).
Tensor rnn_sequence(const Tensor& projected, const Tensor& initial_states,
                    const Tensor& recurrent_kernel, const RnnSequenceArgs& args);

}  // namespace kiln::ops
