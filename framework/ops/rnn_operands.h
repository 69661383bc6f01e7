#pragma once
// Where rnn_sequence's and rnn_sequence_grad's optional inputs sit, read from their attrs, for the
// op definitions and the kernels alike.
#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/ops/rnn_cell.h"

namespace kiln::rnn {

struct RnnOperands {
  Cell cell;
  Activation activation;
  Activation recurrent_activation;
  bool reverse;
  int recurrent_bias = -1;  // -1: absent
  int mask = -1;
  int dropout = -1;
  int count = 3;  // inputs in all

  // rnn_sequence: projected, initial_states, recurrent_kernel[, recurrent_bias][, mask][, dropout]
  static RnnOperands of_forward(const Attrs& attrs) { return RnnOperands(attrs, true); }
  // rnn_sequence_grad: record, d_record, recurrent_kernel[, mask][, dropout]
  static RnnOperands of_backward(const Attrs& attrs) { return RnnOperands(attrs, false); }

 private:
  RnnOperands(const Attrs& attrs, bool forward)
      : cell(static_cast<Cell>(attrs.get(attr::cell))),
        activation(static_cast<Activation>(attrs.get(attr::activation))),
        recurrent_activation(static_cast<Activation>(attrs.get(attr::recurrent_activation))),
        reverse(attrs.get(attr::reverse)) {
    if (forward && cell == Cell::gru) recurrent_bias = count++;
    if (attrs.get(attr::has_mask)) mask = count++;
    if (attrs.get(attr::has_dropout)) dropout = count++;
  }
};

}  // namespace kiln::rnn
