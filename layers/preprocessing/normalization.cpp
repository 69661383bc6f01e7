#include "kiln/layers/preprocessing/normalization.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/initializers/initializers.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {
namespace {

constexpr double kEpsilon = 1e-7;  // Keras's backend.epsilon()

}  // namespace

Normalization::Normalization(NormalizationOptions options)
    : Layer(options.layer_args()), options_(std::move(options)) {
  KILN_CHECK(options_.mean.has_value() == options_.variance.has_value(),
             "Normalization: give both mean and variance, or neither (and adapt)");
  KILN_CHECK(!options_.mean || options_.mean->size() == options_.variance->size(),
             "Normalization: mean has ", options_.mean ? options_.mean->size() : 0,
             " values, variance ", options_.variance ? options_.variance->size() : 0);
  supports_masking_ = true;
}

void Normalization::build(const std::vector<Shape>& input_shapes) {
  const Shape& s = input_shapes.at(0);
  rank_ = s.rank();
  keep_.clear();
  for (const int64_t a : options_.axis) {
    KILN_SHAPE_CHECK(a >= -rank_ && a < rank_, "Normalization '", name(), "': axis ", a,
                     " is outside an input ", s);
    keep_.push_back(a < 0 ? a + rank_ : a);
  }
  std::sort(keep_.begin(), keep_.end());
  keep_.erase(std::unique(keep_.begin(), keep_.end()), keep_.end());
  std::vector<int64_t> dims;
  for (const int64_t a : keep_) {
    KILN_SHAPE_CHECK(s[a] > 0, "Normalization '", name(), "': the kept axis ", a,
                     " must have a known size, got an input ", s);
    dims.push_back(s[a]);
  }
  statistics_shape_ = Shape(dims);
  if (options_.mean) {
    const auto n = static_cast<int64_t>(options_.mean->size());
    KILN_SHAPE_CHECK(n == 1 || (!keep_.empty() && n == s[keep_.back()]), "Normalization '", name(),
                     "': ", n, " values of mean and variance for an input ", s, " kept along ",
                     Shape(keep_));
    return;
  }
  mean_ = add_weight("mean", statistics_shape_, initializers::zeros(), false);
  variance_ = add_weight("variance", statistics_shape_, initializers::ones(), false);
  add_state("count", zeros({}, DType::i64, default_device()));
}

Tensor Normalization::broadcast_statistic(const Tensor& values, DType dtype) const {
  std::vector<int64_t> shape(static_cast<size_t>(rank_), 1);
  if (values.numel() > 1) {
    if (values.rank() == 1 && values.numel() != statistics_shape_.numel())
      shape[static_cast<size_t>(keep_.back())] = values.numel();  // given for the last kept axis
    else
      for (size_t i = 0; i < keep_.size(); ++i)
        shape[static_cast<size_t>(keep_[i])] = statistics_shape_[static_cast<int>(i)];
  }
  return ops::reshape(values.dtype() == dtype ? values : ops::cast(values, dtype), Shape(shape));
}

std::vector<Tensor> Normalization::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const DType dtype = dtype_policy().compute;
  const Tensor x = inputs[0].dtype() == dtype ? inputs[0] : ops::cast(inputs[0], dtype);
  const auto given = [&](const std::vector<double>& v) {
    return from_vector(v, {static_cast<int64_t>(v.size())}, dtype, x.device());
  };
  const Tensor mean =
      broadcast_statistic(options_.mean ? given(*options_.mean) : read(mean_), dtype);
  const Tensor variance =
      broadcast_statistic(options_.variance ? given(*options_.variance) : read(variance_), dtype);
  const Tensor scale = ops::maximum(ops::sqrt(variance), kEpsilon);
  return {options_.invert ? mean + x * scale : (x - mean) / scale};
}

void Normalization::adapt(const Batches& next) {
  KILN_CHECK(!options_.mean, "Normalization '", name(),
             "' was given its mean and variance; adapt computes them for a layer given neither");
  std::optional<Tensor> batch = next();
  KILN_CHECK(batch.has_value(), "Normalization '", name(), "': adapt got no data");
  if (!built()) build_from({batch->shape()});
  std::vector<int64_t> reduce;
  for (int a = 0; a < rank_; ++a)
    if (!std::binary_search(keep_.begin(), keep_.end(), a)) reduce.push_back(a);
  Tensor total_mean = zeros(statistics_shape_, DType::f64, Device::cpu());
  Tensor total_variance = zeros(statistics_shape_, DType::f64, Device::cpu());
  int64_t total_count = 0;
  for (; batch; batch = next()) {
    KILN_SHAPE_CHECK(batch->rank() == rank_, "Normalization '", name(), "': adapt got a batch ",
                     batch->shape(), " of another rank than ", rank_);
    for (size_t i = 0; i < keep_.size(); ++i)
      KILN_SHAPE_CHECK(batch->dim(keep_[i]) == statistics_shape_[static_cast<int>(i)],
                       "Normalization '", name(), "': adapt got a batch ", batch->shape(),
                       " whose kept axes differ from ", statistics_shape_);
    const Tensor b = ops::cast(batch->to(Device::cpu()), DType::f64);
    const Tensor batch_mean = ops::reshape(ops::mean(b, reduce), statistics_shape_);
    const Tensor batch_variance = ops::reshape(ops::variance(b, reduce), statistics_shape_);
    int64_t batch_count = 1;
    for (const int64_t a : reduce) batch_count *= b.dim(a);
    total_count += batch_count;
    const double batch_weight = static_cast<double>(batch_count) / static_cast<double>(total_count);
    const double existing_weight = 1.0 - batch_weight;
    const Tensor new_mean = total_mean * existing_weight + batch_mean * batch_weight;
    total_variance = (total_variance + ops::square(total_mean - new_mean)) * existing_weight +
                     (batch_variance + ops::square(batch_mean - new_mean)) * batch_weight;
    total_mean = new_mean;
  }
  mean_.assign(ops::cast(total_mean, mean_.dtype()).to(mean_.meta().device));
  variance_.assign(ops::cast(total_variance, variance_.dtype()).to(variance_.meta().device));
}

namespace {

using Options = NormalizationOptions;

// Keras writes axis as a tuple (or null: every axis reduced, written as []), mean and variance
// as a number, a list or null.
std::optional<std::vector<double>> numbers(const Config& c) {
  return c.is_list() ? c.as_double_list() : std::vector<double>{c.as_double()};
}

Config numbers_config(const std::optional<std::vector<double>>& v) {
  if (!v) return Config();
  return v->size() == 1 ? Config((*v)[0]) : Config(*v);
}

const FieldTable<Options>& fields() {
  static const FieldTable<Options> table{
      nullable(field(
          "axis", &Options::axis,
          [](const Config& c) {
            return c.is_null()   ? std::vector<int64_t>{}
                   : c.is_list() ? c.as_int_list()
                                 : std::vector<int64_t>{c.as_int()};
          },
          [](const std::vector<int64_t>& axis) { return Config(axis); })),
      field("invert", &Options::invert), field("mean", &Options::mean, numbers, numbers_config),
      field("variance", &Options::variance, numbers, numbers_config)};
  return table;
}

}  // namespace

Config Normalization::get_config() const {
  return write_fields(options_, fields(), Layer::get_config());
}

LayerPtr Normalization::from_config(const Config& c) {
  return std::make_shared<Normalization>(read_layer_fields(c, fields(), "Normalization"));
}

}  // namespace kiln::layers
