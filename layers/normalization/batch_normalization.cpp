#include "kiln/layers/normalization/batch_normalization.h"

#include <tuple>

#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/normalization/normalize.h"

namespace kiln::layers {

BatchNormalization::BatchNormalization(BatchNormalizationOptions options)
    : Layer(options.layer_args()), options_(std::move(options)) {
  KILN_CHECK(options_.epsilon > 0, "BatchNormalization: epsilon must be positive, got ",
             options_.epsilon);
  supports_masking_ = true;
}

void BatchNormalization::build(const std::vector<Shape>& input_shapes) {
  const Shape& s = input_shapes.at(0);
  axis_ = normalize_axis(options_.axis, s.rank());
  const int64_t channels = s[axis_];
  KILN_CHECK(channels > 0, "BatchNormalization needs a known size of axis ", options_.axis,
             ", got input ", s);
  const Shape shape{channels};
  if (options_.scale)
    gamma_ = add_weight("gamma", shape, options_.gamma_initializer.get(), true,
                        options_.gamma_regularizer, options_.gamma_constraint);
  if (options_.center)
    beta_ = add_weight("beta", shape, options_.beta_initializer.get(), true,
                       options_.beta_regularizer, options_.beta_constraint);
  moving_mean_ = add_weight("moving_mean", shape, options_.moving_mean_initializer.get(), false);
  moving_variance_ =
      add_weight("moving_variance", shape, options_.moving_variance_initializer.get(), false);
}

std::pair<Tensor, Tensor> BatchNormalization::moments(const Tensor& x, const Tensor& mask) const {
  std::vector<int64_t> axes;
  for (int i = 0; i < x.rank(); ++i)
    if (i != axis_) axes.push_back(i);
  const bool across_replicas = options_.synchronized && distributed::replica_context().count > 1;
  if (!mask.defined() && !across_replicas)
    return {ops::mean(x, axes, true), ops::variance(x, axes, true)};
  KILN_CHECK(!mask.defined() || mask.rank() == x.rank() - 1,
             "BatchNormalization: the mask must have one dim less than the input, got mask ",
             mask.shape(), " for input ", x.shape());
  // Sums over the batch (every replica's when synchronized) weighted by the mask, if any; the
  // variance is a second pass around the global mean, as one device computes it.
  const Tensor weight =
      mask.defined() ? ops::broadcast_like(ops::cast(ops::expand_dims(mask, -1), x.dtype()), x)
                     : Tensor();
  const auto global = [&](const Tensor& t) {
    return across_replicas ? distributed::global_sum(t) : t;
  };
  const auto sum = [&](const Tensor& v) {
    return global(ops::sum(weight.defined() ? v * weight : v, axes, true));
  };
  // Keras's masked moments add an epsilon against an all-masked batch.
  const Tensor count =
      mask.defined() ? sum(ops::ones_like(x)) + 1e-7 : global(ops::size_of(x, axes, x.dtype()));
  const Tensor mean = sum(x) / count;
  const Tensor variance = sum(ops::square(x - mean)) / count;
  return {mean, variance};
}

void BatchNormalization::update_moving(const Variable& moving, const Tensor& batch) const {
  const Tensor current = ops::cast(moving.value(), batch.dtype());
  const Tensor batch_flat = ops::reshape(batch, moving.shape());
  const Tensor updated = current * options_.momentum + batch_flat * (1.0 - options_.momentum);
  moving.assign(ops::cast(updated, moving.dtype()));
}

std::vector<Tensor> BatchNormalization::call(const std::vector<Tensor>& inputs,
                                             const CallContext& context) {
  const Tensor x = ops::cast(inputs[0], statistics_dtype(inputs[0].dtype()));
  KILN_CHECK(x.rank() > axis_ && x.dim(axis_) == moving_mean_.shape()[0],
             "BatchNormalization was built for ", moving_mean_.shape()[0], " channels on axis ",
             axis_, ", got input ", x.shape());
  const std::vector<int> param_axes{axis_};
  // The weights are read in the statistics dtype, not cast to a half compute dtype.
  const auto param = [&](const Variable& v) {
    return v.defined() ? broadcast_param(ops::cast(v.value(), x.dtype()), param_axes, x.rank())
                       : Tensor();
  };
  Tensor mean;
  Tensor variance;
  if (context.training && trainable()) {
    std::tie(mean, variance) = moments(x, context.masks.empty() ? Tensor() : context.masks[0]);
    update_moving(moving_mean_, mean);
    update_moving(moving_variance_, variance);
  } else {
    mean = param(moving_mean_);
    variance = param(moving_variance_);
  }
  const Tensor y = normalize(x, mean, variance, param(gamma_), param(beta_), options_.epsilon);
  return {ops::cast(y, dtype_policy().compute)};
}

namespace {

using Options = BatchNormalizationOptions;

// Batch renormalization is not implemented.
const FieldTable<Options>& fields() {
  static const FieldTable<Options> table{
      field("axis", &Options::axis),
      field("momentum", &Options::momentum),
      field("epsilon", &Options::epsilon),
      field("center", &Options::center),
      field("scale", &Options::scale),
      initializer_field("beta_initializer", &Options::beta_initializer),
      initializer_field("gamma_initializer", &Options::gamma_initializer),
      initializer_field("moving_mean_initializer", &Options::moving_mean_initializer),
      initializer_field("moving_variance_initializer", &Options::moving_variance_initializer),
      regularizer_field("beta_regularizer", &Options::beta_regularizer),
      regularizer_field("gamma_regularizer", &Options::gamma_regularizer),
      constraint_field("beta_constraint", &Options::beta_constraint),
      constraint_field("gamma_constraint", &Options::gamma_constraint),
      field("synchronized", &Options::synchronized),
      read_only(fixed_field<Options>("renorm", Config(false))),
      read_only(null_field<Options>("renorm_clipping")),
      ignored_field<Options>("renorm_momentum")};
  return table;
}

}  // namespace

Config BatchNormalization::get_config() const {
  return write_fields(options_, fields(), Layer::get_config());
}

LayerPtr BatchNormalization::from_config(const Config& c) {
  return std::make_shared<BatchNormalization>(read_layer_fields(c, fields(), "BatchNormalization"));
}

}  // namespace kiln::layers
