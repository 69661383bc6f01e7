#include "kiln/layers/core/dense.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/activations/activations.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/unsupported_args.h"

namespace kiln::layers {

Dense::Dense(int64_t units, DenseOptions options)
    : Layer(options.layer_args()),
      units_(units),
      options_(std::move(options)),
      activation_(activations::get(options_.activation)) {
  KILN_CHECK(units > 0, "Dense: units must be positive, got ", units);
  supports_masking_ = true;  // it acts on the last axis: each step stays where it is
}

void Dense::build(const std::vector<Shape>& input_shapes) {
  const int64_t in = input_shapes.at(0).dim(-1);
  KILN_CHECK(in > 0, "layer '", name(), "' (Dense) needs a known last input dim, got ",
             input_shapes[0]);
  kernel_ = add_weight("kernel", {in, units_}, initializers::get(options_.kernel_initializer), true,
                       options_.kernel_regularizer);
  if (options_.use_bias)
    bias_ = add_weight("bias", {units_}, initializers::get(options_.bias_initializer), true,
                       options_.bias_regularizer);
}

std::vector<Tensor> Dense::call(const std::vector<Tensor>& inputs, const CallContext&) {
  Tensor y = ops::matmul(inputs[0], read(kernel_));
  if (options_.use_bias) y = y + read(bias_);
  return {activation_(y)};
}

Config Dense::get_config() const {
  return Layer::get_config()
      .set("units", units_)
      .set("activation", options_.activation)
      .set("use_bias", options_.use_bias)
      .set("kernel_initializer", serialize_initializer(options_.kernel_initializer))
      .set("bias_initializer", serialize_initializer(options_.bias_initializer))
      .set("kernel_regularizer", serialize_regularizer(options_.kernel_regularizer))
      .set("bias_regularizer", serialize_regularizer(options_.bias_regularizer));
}

LayerPtr Dense::from_config(const Config& c) {
  check_layer_keys(
      c,
      {"units", "activation", "use_bias", "kernel_initializer", "bias_initializer",
       "kernel_regularizer", "bias_regularizer", "kernel_constraint", "bias_constraint",
       "activity_regularizer", "lora_rank", "lora_alpha", "quantization_config"},
      "Dense");
  require_null(c,
               {"kernel_constraint", "bias_constraint", "activity_regularizer", "lora_rank",
                "quantization_config"},
               "Dense");
  DenseOptions o;
  o.activation = c.get_string("activation", o.activation);
  o.use_bias = c.get_bool("use_bias", o.use_bias);
  o.kernel_initializer = initializer_name(c, "kernel_initializer", o.kernel_initializer);
  o.bias_initializer = initializer_name(c, "bias_initializer", o.bias_initializer);
  o.kernel_regularizer = regularizer_of(c, "kernel_regularizer");
  o.bias_regularizer = regularizer_of(c, "bias_regularizer");
  read_layer_args(c, o);
  return std::make_shared<Dense>(c["units"].as_int(), std::move(o));
}

}  // namespace kiln::layers
