#include "kiln/layers/core/dense.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/activations/activations.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Dense::Dense(int64_t units, DenseOptions options)
    : Layer(options.layer_args()), units_(units), options_(std::move(options)) {
  KILN_CHECK(units > 0, "Dense: units must be positive, got ", units);
  supports_masking_ = true;  // it acts on the last axis: each step stays where it is
}

void Dense::build(const std::vector<Shape>& input_shapes) {
  const int64_t in = input_shapes.at(0).dim(-1);
  KILN_CHECK(in > 0, "layer '", name(), "' (Dense) needs a known last input dim, got ",
             input_shapes[0]);
  kernel_ = add_weight("kernel", {in, units_}, options_.kernel_initializer.get(), true,
                       options_.kernel_regularizer, options_.kernel_constraint);
  if (options_.use_bias)
    bias_ = add_weight("bias", {units_}, options_.bias_initializer.get(), true,
                       options_.bias_regularizer, options_.bias_constraint);
}

std::vector<Tensor> Dense::call(const std::vector<Tensor>& inputs, const CallContext&) {
  Tensor y = ops::matmul(inputs[0], read(kernel_));
  if (options_.use_bias) y = y + read(bias_);
  return {options_.activation(y)};
}

namespace {

// Keras writes the constraints and quantization_config (null when unset) but the LoRA arguments
// and the activity regularizer (a base argument, Layer::get_config) only when set.
const FieldTable<DenseOptions>& option_fields() {
  static const FieldTable<DenseOptions> table{
      activation_field("activation", &DenseOptions::activation),
      field("use_bias", &DenseOptions::use_bias),
      initializer_field("kernel_initializer", &DenseOptions::kernel_initializer),
      initializer_field("bias_initializer", &DenseOptions::bias_initializer),
      regularizer_field("kernel_regularizer", &DenseOptions::kernel_regularizer),
      regularizer_field("bias_regularizer", &DenseOptions::bias_regularizer),
      constraint_field("kernel_constraint", &DenseOptions::kernel_constraint),
      constraint_field("bias_constraint", &DenseOptions::bias_constraint),
      null_field<DenseOptions>("quantization_config"),
      read_only(null_field<DenseOptions>("lora_rank")),
      ignored_field<DenseOptions>("lora_alpha")};
  return table;
}

struct DenseArguments : DenseOptions {
  int64_t units = 0;
};

const FieldTable<DenseArguments>& fields() {
  static const FieldTable<DenseArguments> table = with_options<DenseArguments>(
      {required(field("units", &DenseArguments::units))}, option_fields());
  return table;
}

}  // namespace

Config Dense::get_config() const {
  return write_fields(DenseArguments{options_, units_}, fields(), Layer::get_config());
}

LayerPtr Dense::from_config(const Config& c) {
  const DenseArguments a = read_layer_fields(c, fields(), "Dense");
  return std::make_shared<Dense>(a.units, a);
}

}  // namespace kiln::layers
