#pragma once
// The recurrent cells that run as one op over a whole sequence (ops::rnn_sequence): gate and
// state counts, and the layout of the record the forward op writes and its gradient reads.
// Shared by the op's definition and every backend's kernels.
//
// The record is [batch, time + 1, record_width]. Row 0 holds the initial states; row s + 1 the
// states after step s (h first, then c for an LSTM) followed by what the gradient needs of that
// step:
//   SimpleRNN  h
//   GRU        h | z r hh (activations) | rh (h_prev . U_h + b_h, before the reset gate)
//   LSTM       h c | i f g o (activations)
// A masked step carries the states through unchanged, so row s + 1 then repeats row s.
// The gradient op returns [batch, time + 1, grad_width]: row t + 1 is the gradient of the input
// projection at time t (then, for a GRU, of the recurrent projection), row 0 that of the initial
// states.
#include <cstdint>

namespace kiln::rnn {

enum class Cell : int64_t { simple = 0, gru = 1, lstm = 2 };

// Activations a cell may use; each derivative is a function of the activation's output.
enum class Activation : int64_t { tanh = 0, sigmoid = 1, relu = 2, linear = 3 };

struct CellLayout {
  Cell cell;
  int64_t units;

  // Blocks of `units` columns in the kernels and projections (Keras order: GRU z r h, LSTM i f
  // c o).
  int64_t gates() const { return cell == Cell::simple ? 1 : cell == Cell::gru ? 3 : 4; }
  int64_t states() const { return cell == Cell::lstm ? 2 : 1; }
  int64_t record_width() const {
    return units * (cell == Cell::simple ? 1 : cell == Cell::gru ? 5 : 6);
  }
  // A GRU's recurrent projection has its own gradient (the reset gate scales part of it).
  int64_t grad_width() const { return units * gates() * (cell == Cell::gru ? 2 : 1); }
};

}  // namespace kiln::rnn
