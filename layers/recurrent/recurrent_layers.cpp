#include "kiln/layers/recurrent/recurrent_layers.h"

namespace kiln::layers {

SimpleRNN::SimpleRNN(int64_t units, RecurrentOptions options)
    : Recurrent(rnn::Cell::simple, units, std::move(options)) {}
LayerPtr SimpleRNN::from_config(const Config& config) {
  return std::make_shared<SimpleRNN>(config["units"].as_int(),
                                     options_from_config(config, rnn::Cell::simple, "SimpleRNN"));
}

GRU::GRU(int64_t units, RecurrentOptions options)
    : Recurrent(rnn::Cell::gru, units, std::move(options)) {}
LayerPtr GRU::from_config(const Config& config) {
  return std::make_shared<GRU>(config["units"].as_int(),
                               options_from_config(config, rnn::Cell::gru, "GRU"));
}

LSTM::LSTM(int64_t units, RecurrentOptions options)
    : Recurrent(rnn::Cell::lstm, units, std::move(options)) {}
LayerPtr LSTM::from_config(const Config& config) {
  return std::make_shared<LSTM>(config["units"].as_int(),
                                options_from_config(config, rnn::Cell::lstm, "LSTM"));
}

}  // namespace kiln::layers
