#pragma once
// What Keras's SimpleRNN, GRU and LSTM share: weights kernel [features, gates * units],
// recurrent_kernel [units, gates * units] and bias; return_sequences, return_state,
// go_backwards, initial states as extra inputs, dropout on the inputs and on the recurrent
// state (one mask per sequence, as Keras 3 draws them), and masks (a masked step carries the
// states through, so padding on either side changes nothing). The whole sequence runs as one
// rnn_sequence op: its kernel loops to the time length the batch has, so a model with an unknown
// time dim traces once for every length.
//
// Inputs: x [batch, time, features], then optionally the initial states [batch, units] (h, and
// c for an LSTM). Outputs: the last h, or every step's h with return_sequences ([batch, time,
// units], in processing order when go_backwards), followed with return_state by the final
// states.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/framework/core/config_fields.h"
#include "kiln/framework/ops/rnn_cell.h"
#include "kiln/layers/layer.h"
#include "kiln/layers/random/seed_generator.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

struct RecurrentOptions {
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";  // GRU and LSTM gates
  bool use_bias = true;
  initializers::InitializerArg kernel_initializer = "glorot_uniform";
  initializers::InitializerArg recurrent_initializer = "orthogonal";
  initializers::InitializerArg bias_initializer = "zeros";
  bool unit_forget_bias = true;  // LSTM: the forget gate's bias starts at 1
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr recurrent_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr recurrent_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  double dropout = 0;
  double recurrent_dropout = 0;
  bool return_sequences = false;
  bool return_state = false;
  bool go_backwards = false;
  // Keras unrolls the loop into separate steps when set; kiln's traced loop computes the same
  // either way, so it is kept only for the config.
  bool unroll = false;
  // Masked steps output zeros instead of repeating the last h (Keras sets it in Bidirectional).
  bool zero_output_for_mask = false;
  std::optional<int64_t> seed = std::nullopt;
  KILN_LAYER_ARGS_FIELDS
};

class Recurrent : public Layer {
 public:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  Config get_config() const override;
  // Keras keeps a recurrent layer's weights in its cell: <layer>/cell/vars.
  std::vector<WeightGroup> weight_groups() const override;

  rnn::Cell cell() const { return cell_; }
  int64_t units() const { return units_; }
  const RecurrentOptions& options() const { return options_; }
  const Variable& kernel() const { return kernel_; }
  const Variable& recurrent_kernel() const { return recurrent_kernel_; }
  const Variable& bias() const { return bias_; }

 protected:
  Recurrent(rnn::Cell cell, int64_t units, RecurrentOptions options);
  // A SimpleRNN's, GRU's or LSTM's arguments: the options and the required units.
  struct Arguments : RecurrentOptions {
    int64_t units = 0;
  };
  // The arguments of a SimpleRNN, GRU or LSTM config (Keras's keys; unsupported ones are errors).
  static Arguments arguments_from_config(const Config& config, rnn::Cell cell,
                                         std::string_view class_name);

 private:
  static const FieldTable<Arguments>& fields(rnn::Cell cell);
  std::string label() const;  // "layer 'lstm' (LSTM)"
  Tensor weight(const Variable& w, DType dtype) const;
  Tensor initial_states(const std::vector<Tensor>& inputs, const Tensor& projected) const;
  Tensor dropout_mask(const Tensor& like, double rate) const;

  rnn::Cell cell_;
  int64_t units_;
  RecurrentOptions options_;
  rnn::Activation activation_;
  rnn::Activation recurrent_activation_;
  Variable kernel_;
  Variable recurrent_kernel_;
  Variable bias_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
