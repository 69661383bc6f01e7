#include "kiln/layers/recurrent/recurrent_layers.h"

namespace kiln::layers {

SimpleRNN::SimpleRNN(int64_t units, RecurrentOptions options)
    : Recurrent(rnn::Cell::simple, units, std::move(options)) {}
LayerPtr SimpleRNN::from_config(const Config& config) {
  const Arguments a = arguments_from_config(config, rnn::Cell::simple, "SimpleRNN");
  return std::make_shared<SimpleRNN>(a.units, a);
}

GRU::GRU(int64_t units, RecurrentOptions options)
    : Recurrent(rnn::Cell::gru, units, std::move(options)) {}
LayerPtr GRU::from_config(const Config& config) {
  const Arguments a = arguments_from_config(config, rnn::Cell::gru, "GRU");
  return std::make_shared<GRU>(a.units, a);
}

LSTM::LSTM(int64_t units, RecurrentOptions options)
    : Recurrent(rnn::Cell::lstm, units, std::move(options)) {}
LayerPtr LSTM::from_config(const Config& config) {
  const Arguments a = arguments_from_config(config, rnn::Cell::lstm, "LSTM");
  return std::make_shared<LSTM>(a.units, a);
}

}  // namespace kiln::layers
