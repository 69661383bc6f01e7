#pragma once
// keras.layers.SimpleRNN, GRU (reset_after, Keras's default) and LSTM on the shared recurrent
// layer (recurrent.h).
//   auto lstm = LSTM(64, {.return_sequences = true, .dropout = 0.1});
#include "kiln/layers/recurrent/recurrent.h"

namespace kiln::layers {

class SimpleRNN : public Recurrent {
  KILN_LAYER_CLASS(SimpleRNN)

 public:
  explicit SimpleRNN(int64_t units, RecurrentOptions options = {});
  static LayerPtr from_config(const Config& config);
};

class GRU : public Recurrent {
  KILN_LAYER_CLASS(GRU)

 public:
  explicit GRU(int64_t units, RecurrentOptions options = {});
  static LayerPtr from_config(const Config& config);
};

class LSTM : public Recurrent {
  KILN_LAYER_CLASS(LSTM)

 public:
  explicit LSTM(int64_t units, RecurrentOptions options = {});
  static LayerPtr from_config(const Config& config);
};

}  // namespace kiln::layers
