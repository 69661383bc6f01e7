#include "kiln/layers/normalization/layer_normalization.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/normalization/normalize.h"
#include "kiln/layers/unsupported_args.h"

namespace kiln::layers {

LayerNormalization::LayerNormalization(LayerNormalizationOptions options)
    : Layer(options.layer_args()), options_(std::move(options)) {
  KILN_CHECK(!options_.axis.empty(), "LayerNormalization: axis must name at least one axis");
  KILN_CHECK(options_.epsilon > 0, "LayerNormalization: epsilon must be positive, got ",
             options_.epsilon);
  supports_masking_ = true;
  autocast_ = false;  // statistics of the input as given, not of its half-precision copy
}

void LayerNormalization::build(const std::vector<Shape>& input_shapes) {
  const Shape& s = input_shapes.at(0);
  axes_ = normalize_axes(options_.axis, s.rank());
  std::vector<int64_t> dims;
  for (const int a : axes_) {
    KILN_CHECK(s[a] > 0, "LayerNormalization needs known sizes of the normalized axes ",
               Shape(options_.axis), ", got input ", s);
    dims.push_back(s[a]);
  }
  param_shape_ = Shape(std::move(dims));
  if (options_.scale || options_.rms_scaling)
    gamma_ = add_weight("gamma", param_shape_, initializers::get(options_.gamma_initializer), true,
                        options_.gamma_regularizer);
  if (options_.center && !options_.rms_scaling)
    beta_ = add_weight("beta", param_shape_, initializers::get(options_.beta_initializer), true,
                       options_.beta_regularizer);
}

std::vector<Tensor> LayerNormalization::call(const std::vector<Tensor>& inputs,
                                             const CallContext&) {
  const Tensor x = ops::cast(inputs[0], statistics_dtype(inputs[0].dtype()));
  const std::vector<int64_t> axes(axes_.begin(), axes_.end());
  for (size_t i = 0; i < axes_.size(); ++i)
    KILN_CHECK(axes_[i] < x.rank() && x.dim(axes_[i]) == param_shape_[static_cast<int>(i)],
               "LayerNormalization was built for sizes ", param_shape_, " of axes ",
               Shape(options_.axis), ", got input ", x.shape());
  const auto param = [&](const Variable& v) {
    return v.defined() ? broadcast_param(ops::cast(v.value(), x.dtype()), axes_, x.rank())
                       : Tensor();
  };
  const Tensor variance = ops::variance(x, axes, true);
  // rms_scaling keeps Keras's formula: x / sqrt(variance + epsilon) * gamma, uncentered.
  const Tensor mean = options_.rms_scaling ? zeros({}, x.dtype()) : ops::mean(x, axes, true);
  const Tensor y = normalize(x, mean, variance, param(gamma_), param(beta_), options_.epsilon);
  return {ops::cast(y, dtype_policy().compute)};
}

Config LayerNormalization::get_config() const {
  return Layer::get_config()
      .set("axis", options_.axis.size() == 1 ? Config(options_.axis[0]) : Config(options_.axis))
      .set("epsilon", options_.epsilon)
      .set("center", options_.center)
      .set("scale", options_.scale)
      .set("rms_scaling", options_.rms_scaling)
      .set("beta_initializer", serialize_initializer(options_.beta_initializer))
      .set("gamma_initializer", serialize_initializer(options_.gamma_initializer))
      .set("beta_regularizer", serialize_regularizer(options_.beta_regularizer))
      .set("gamma_regularizer", serialize_regularizer(options_.gamma_regularizer))
      .set("beta_constraint", Config())
      .set("gamma_constraint", Config());
}

LayerPtr LayerNormalization::from_config(const Config& c) {
  check_layer_keys(
      c,
      {"axis", "epsilon", "center", "scale", "rms_scaling", "beta_initializer", "gamma_initializer",
       "beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint"},
      "LayerNormalization");
  require_null(c, {"beta_constraint", "gamma_constraint"}, "LayerNormalization");
  LayerNormalizationOptions o;
  if (c.contains("axis")) o.axis = c["axis"].as_int_list();
  o.epsilon = c.get_double("epsilon", o.epsilon);
  o.center = c.get_bool("center", o.center);
  o.scale = c.get_bool("scale", o.scale);
  o.rms_scaling = c.get_bool("rms_scaling", o.rms_scaling);
  o.beta_initializer = initializer_name(c, "beta_initializer", o.beta_initializer);
  o.gamma_initializer = initializer_name(c, "gamma_initializer", o.gamma_initializer);
  o.beta_regularizer = regularizer_of(c, "beta_regularizer");
  o.gamma_regularizer = regularizer_of(c, "gamma_regularizer");
  read_layer_args(c, o);
  return std::make_shared<LayerNormalization>(std::move(o));
}

}  // namespace kiln::layers
