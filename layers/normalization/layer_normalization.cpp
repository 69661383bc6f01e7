#include "kiln/layers/normalization/layer_normalization.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/normalization/normalize.h"

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
    gamma_ = add_weight("gamma", param_shape_, options_.gamma_initializer.get(), true,
                        options_.gamma_regularizer, options_.gamma_constraint);
  if (options_.center && !options_.rms_scaling)
    beta_ = add_weight("beta", param_shape_, options_.beta_initializer.get(), true,
                       options_.beta_regularizer, options_.beta_constraint);
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
  const Tensor mean =
      options_.rms_scaling ? zeros({}, x.dtype(), x.device()) : ops::mean(x, axes, true);
  const Tensor y = normalize(x, mean, variance, param(gamma_), param(beta_), options_.epsilon);
  return {ops::cast(y, dtype_policy().compute)};
}

namespace {

using Options = LayerNormalizationOptions;

// Keras writes one axis as an int and several as a list.
const FieldTable<Options>& fields() {
  static const FieldTable<Options> table{
      field(
          "axis", &Options::axis, [](const Config& axis) { return axis.as_int_list(); },
          [](const std::vector<int64_t>& axis) {
            return axis.size() == 1 ? Config(axis[0]) : Config(axis);
          }),
      field("epsilon", &Options::epsilon),
      field("center", &Options::center),
      field("scale", &Options::scale),
      field("rms_scaling", &Options::rms_scaling),
      initializer_field("beta_initializer", &Options::beta_initializer),
      initializer_field("gamma_initializer", &Options::gamma_initializer),
      regularizer_field("beta_regularizer", &Options::beta_regularizer),
      regularizer_field("gamma_regularizer", &Options::gamma_regularizer),
      constraint_field("beta_constraint", &Options::beta_constraint),
      constraint_field("gamma_constraint", &Options::gamma_constraint)};
  return table;
}

}  // namespace

Config LayerNormalization::get_config() const {
  return write_fields(options_, fields(), Layer::get_config());
}

LayerPtr LayerNormalization::from_config(const Config& c) {
  return std::make_shared<LayerNormalization>(read_layer_fields(c, fields(), "LayerNormalization"));
}

}  // namespace kiln::layers
