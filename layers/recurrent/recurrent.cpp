#include "kiln/layers/recurrent/recurrent.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/rnn_ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {
namespace {

rnn::Activation activation_of(const std::string& name, const std::string& layer) {
  if (name == "tanh") return rnn::Activation::tanh;
  if (name == "sigmoid") return rnn::Activation::sigmoid;
  if (name == "relu") return rnn::Activation::relu;
  if (name == "linear" || name.empty()) return rnn::Activation::linear;
  throw Error(detail::concat(layer, ": activation '", name,
                             "' is not one the recurrent kernels run (tanh, sigmoid, relu, "
                             "linear)"));
}

// Keras's unit_forget_bias: the bias initializer's values with the forget gate's block (the
// second of i f c o) set to one, so an LSTM starts out remembering.
class ForgetGateBias : public initializers::Initializer {
 public:
  explicit ForgetGateBias(initializers::InitializerPtr base) : base_(std::move(base)) {}
  Tensor operator()(const Shape& shape, DType dtype, random::Generator& gen) const override {
    const int64_t units = shape[0] / 4;
    return ops::concat(
        {(*base_)({units}, dtype, gen), ones({units}, dtype), (*base_)({2 * units}, dtype, gen)});
  }
  std::string name() const override { return base_->name(); }
  Config get_config() const override { return base_->get_config(); }

 private:
  initializers::InitializerPtr base_;
};

// The class name, for errors raised while constructing (before class_name() can be called).
const char* class_of(rnn::Cell cell) {
  return cell == rnn::Cell::simple ? "SimpleRNN" : cell == rnn::Cell::gru ? "GRU" : "LSTM";
}

Tensor row(const Tensor& matrix, int64_t i) {
  return ops::reshape(ops::slice(matrix, {i, 0}, {1, -1}), {matrix.dim(1)});
}

}  // namespace

Recurrent::Recurrent(rnn::Cell cell, int64_t units, RecurrentOptions options)
    : Layer(options.layer_args()),
      cell_(cell),
      units_(units),
      options_(std::move(options)),
      activation_(rnn::Activation::tanh),
      recurrent_activation_(rnn::Activation::sigmoid),
      seed_generator_(options_.seed, "recurrent_seed") {
  track_random_state(seed_generator_.state());
  KILN_CHECK(units > 0, class_of(cell), ": units must be positive, got ", units);
  KILN_CHECK(options_.dropout >= 0 && options_.dropout < 1 && options_.recurrent_dropout >= 0 &&
                 options_.recurrent_dropout < 1,
             class_of(cell), ": dropout and recurrent_dropout must be in [0, 1), got ",
             options_.dropout, " and ", options_.recurrent_dropout);
  activation_ = activation_of(options_.activation, class_of(cell));
  recurrent_activation_ = activation_of(options_.recurrent_activation, class_of(cell));
  supports_masking_ = true;
}

std::string Recurrent::label() const {
  return detail::concat("layer '", name(), "' (", class_name(), ")");
}

void Recurrent::build(const std::vector<Shape>& input_shapes) {
  const Shape& x = input_shapes.at(0);
  KILN_CHECK(x.rank() == 3 && x[2] > 0, label(),
             " expects [batch, time, features] with known features, got ", x);
  const rnn::CellLayout layout{cell_, units_};
  const int64_t width = layout.gates() * units_;
  kernel_ = add_weight("kernel", {x[2], width}, options_.kernel_initializer.get(), true,
                       options_.kernel_regularizer, options_.kernel_constraint);
  recurrent_kernel_ =
      add_weight("recurrent_kernel", {units_, width}, options_.recurrent_initializer.get(), true,
                 options_.recurrent_regularizer, options_.recurrent_constraint);
  if (!options_.use_bias) return;
  initializers::InitializerPtr bias_init = options_.bias_initializer.get();
  if (cell_ == rnn::Cell::lstm && options_.unit_forget_bias)
    bias_init = std::make_shared<ForgetGateBias>(bias_init);
  // A GRU with reset_after has separate input and recurrent biases: rows 0 and 1.
  const Shape shape = cell_ == rnn::Cell::gru ? Shape{2, width} : Shape{width};
  bias_ = add_weight("bias", shape, bias_init, true, options_.bias_regularizer,
                     options_.bias_constraint);
}

// The kernels run in float32 (or float64): under a mixed policy the weights are read unrounded.
Tensor Recurrent::weight(const Variable& w, DType dtype) const {
  const Tensor v = read(w);
  return ops::cast(v.dtype() == dtype ? v : w.value(), dtype);
}

Tensor Recurrent::dropout_mask(const Tensor& like, double rate) const {
  const Tensor keep =
      ops::greater_equal(ops::random_uniform_like(like, seed_generator_.next(), like.dtype()),
                         full({}, rate, like.dtype(), like.device()));
  return ops::cast(keep, like.dtype()) * (1.0 / (1.0 - rate));
}

// [batch or 1, states, units]: the given initial states stacked, or zeros for every sequence.
Tensor Recurrent::initial_states(const std::vector<Tensor>& inputs, const Tensor& projected) const {
  const int64_t states = rnn::CellLayout{cell_, units_}.states();
  if (inputs.size() == 1) return zeros({1, states, units_}, projected.dtype(), projected.device());
  KILN_CHECK(static_cast<int64_t>(inputs.size()) == 1 + states, label(), " takes ", states,
             " initial state(s) after its input, got ", inputs.size() - 1);
  std::vector<Tensor> given;
  for (size_t i = 1; i < inputs.size(); ++i) {
    const Tensor& s = inputs[i];
    KILN_CHECK(s.rank() == 2 && s.dim(1) == units_, label(), ": initial state ", i - 1,
               " must be [batch, ", units_, "], got ", kiln::describe(s.meta()));
    given.push_back(ops::cast(s, projected.dtype()));
  }
  return ops::stack(given, 1);
}

std::vector<Tensor> Recurrent::call(const std::vector<Tensor>& inputs, const CallContext& context) {
  const Tensor& input = inputs.at(0);
  KILN_CHECK(input.rank() == 3, label(), " expects [batch, time, features], got ",
             kiln::describe(input.meta()));
  const DType out_dtype = input.dtype();
  const bool exact = out_dtype == DType::f32 || out_dtype == DType::f64;
  Tensor x = exact ? input : ops::cast(input, DType::f32);
  if (context.training && options_.dropout > 0)
    x = x * dropout_mask(ops::slice(x, {0, 0, 0}, {-1, 1, -1}), options_.dropout);
  Tensor projected = ops::matmul(x, weight(kernel_, x.dtype()));
  const bool gru = cell_ == rnn::Cell::gru;
  const rnn::CellLayout layout{cell_, units_};
  ops::RnnSequenceArgs args{cell_, activation_, recurrent_activation_, options_.go_backwards};
  if (options_.use_bias) {
    const Tensor bias = weight(bias_, x.dtype());
    projected = projected + (gru ? row(bias, 0) : bias);
    if (gru) args.recurrent_bias = row(bias, 1);
  } else if (gru) {
    args.recurrent_bias = zeros({layout.gates() * units_}, x.dtype(), x.device());
  }
  const Tensor mask = context.masks.empty() ? Tensor() : context.masks[0];
  if (mask.defined())
    args.mask = mask.dtype() == DType::boolean
                    ? mask
                    : ops::not_equal(mask, zeros({}, mask.dtype(), mask.device()));
  if (context.training && options_.recurrent_dropout > 0) {
    const Tensor first = ops::slice(projected, {0, 0, 0}, {-1, 1, units_});
    args.recurrent_dropout =
        dropout_mask(ops::reshape(first, {-1, units_}), options_.recurrent_dropout);
  }
  const Tensor record = ops::rnn_sequence(projected, initial_states(inputs, projected),
                                          weight(recurrent_kernel_, x.dtype()), args);

  auto state = [&](int64_t k) {  // the final value of state k: [batch, units]
    const Tensor last = ops::strided_slice(record, {0, -1, k * units_},
                                           {kSliceEnd, kSliceEnd, (k + 1) * units_}, {1, 1, 1});
    return ops::reshape(last, {-1, units_});
  };
  std::vector<Tensor> out;
  if (options_.return_sequences) {
    Tensor seq = ops::strided_slice(record, {0, 1, 0}, {kSliceEnd, kSliceEnd, units_}, {1, 1, 1});
    if (options_.zero_output_for_mask && args.mask.defined()) {
      const Tensor keep = ops::expand_dims(
          options_.go_backwards
              ? ops::strided_slice(args.mask, {0, kSliceEnd}, {kSliceEnd, kSliceEnd}, {1, -1})
              : args.mask,
          2);
      seq = ops::where(keep, seq, zeros({}, seq.dtype(), seq.device()));
    }
    out.push_back(seq);
  } else {
    out.push_back(state(0));
  }
  if (options_.return_state)
    for (int64_t k = 0; k < layout.states(); ++k) out.push_back(state(k));
  if (!exact)
    for (Tensor& t : out) t = ops::cast(t, out_dtype);
  return out;
}

std::vector<Tensor> Recurrent::compute_mask(const std::vector<Tensor>&,
                                            const std::vector<Tensor>& masks) {
  const int64_t outputs = 1 + (options_.return_state ? rnn::CellLayout{cell_, units_}.states() : 0);
  std::vector<Tensor> out(static_cast<size_t>(outputs));
  if (options_.return_sequences && !masks.empty()) out[0] = masks[0];
  return out;
}

std::vector<WeightGroup> Recurrent::weight_groups() const {
  return {{"", {}, name()}, {"cell", own_weights(), to_snake_case(class_name()) + "_cell"}};
}

namespace {

using Options = RecurrentOptions;

// Keras's keys for one cell, in the order Keras writes them: the gates' activation only for GRU
// and LSTM, unit_forget_bias only for LSTM, reset_after only for GRU (kiln implements Keras's
// default, true).
FieldTable<Options> table_for(rnn::Cell cell) {
  FieldTable<Options> t{field("activation", &Options::activation)};
  if (cell != rnn::Cell::simple)
    t.push_back(field("recurrent_activation", &Options::recurrent_activation));
  t.push_back(field("use_bias", &Options::use_bias));
  t.push_back(initializer_field("kernel_initializer", &Options::kernel_initializer));
  t.push_back(initializer_field("recurrent_initializer", &Options::recurrent_initializer));
  t.push_back(initializer_field("bias_initializer", &Options::bias_initializer));
  if (cell == rnn::Cell::lstm) t.push_back(field("unit_forget_bias", &Options::unit_forget_bias));
  if (cell == rnn::Cell::gru) t.push_back(fixed_field<Options>("reset_after", Config(true)));
  const FieldTable<Options> rest{
      regularizer_field("kernel_regularizer", &Options::kernel_regularizer),
      regularizer_field("recurrent_regularizer", &Options::recurrent_regularizer),
      regularizer_field("bias_regularizer", &Options::bias_regularizer),
      activity_regularizer_field<Options>(),
      constraint_field("kernel_constraint", &Options::kernel_constraint),
      constraint_field("recurrent_constraint", &Options::recurrent_constraint),
      constraint_field("bias_constraint", &Options::bias_constraint),
      field("dropout", &Options::dropout),
      field("recurrent_dropout", &Options::recurrent_dropout),
      field("seed", &Options::seed),
      field("return_sequences", &Options::return_sequences),
      field("return_state", &Options::return_state),
      field("go_backwards", &Options::go_backwards),
      fixed_field<Options>("stateful", Config(false),
                           "carry states with return_state and initial states instead"),
      field("unroll", &Options::unroll),
      field("zero_output_for_mask", &Options::zero_output_for_mask),
      ignored_field<Options>("use_cudnn"),
      read_only(
          fixed_field<Options>("time_major", Config(false), "inputs are [batch, time, features]"))};
  t.insert(t.end(), rest.begin(), rest.end());
  return t;
}

}  // namespace

// Each cell's table, the required units first.
const FieldTable<Recurrent::Arguments>& Recurrent::fields(rnn::Cell cell) {
  const auto with_units = [](rnn::Cell c) {
    return with_options<Arguments>({required(field("units", &Arguments::units))}, table_for(c));
  };
  static const FieldTable<Arguments> simple = with_units(rnn::Cell::simple);
  static const FieldTable<Arguments> gru = with_units(rnn::Cell::gru);
  static const FieldTable<Arguments> lstm = with_units(rnn::Cell::lstm);
  return cell == rnn::Cell::simple ? simple : cell == rnn::Cell::gru ? gru : lstm;
}

Config Recurrent::get_config() const {
  return write_fields(Arguments{options_, units_}, fields(cell_), Layer::get_config());
}

Recurrent::Arguments Recurrent::arguments_from_config(const Config& c, rnn::Cell cell,
                                                      std::string_view class_name) {
  return read_layer_fields(c, fields(cell), class_name);
}

}  // namespace kiln::layers
