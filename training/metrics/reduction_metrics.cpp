#include "kiln/training/metrics/reduction_metrics.h"

#include <memory>
#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/training/metrics/metric_config.h"
#include "kiln/training/metrics/tensor_utils.h"

namespace kiln::metrics {
namespace {

using Reduce = Tensor (*)(const Tensor&, std::vector<int64_t>, bool);

struct SamplewiseValues {
  Tensor values;  // one value per sample (rank <= 1)
  Tensor weight;  // undefined without sample weights; else summed by Mean into its count
};

// keras.metrics.reduction_metrics.reduce_to_samplewise_values: weights values, then reduces
// both to one entry per sample with `reduce` (sum for Sum, mean for Mean).
SamplewiseValues reduce_to_samplewise_values(const Tensor& raw_values, const Tensor& raw_weight,
                                             Reduce reduce) {
  Tensor values = to_float32(raw_values);
  Tensor weight;
  if (raw_weight.defined()) {
    std::tie(values, weight) = squeeze_or_expand_to_same_rank(values, to_float32(raw_weight));
    const int weight_rank = weight.rank();
    if (values.rank() > weight_rank)
      values = reduce(values, trailing_axes(weight_rank, values.rank()), false);
    KILN_CHECK(weight_rank <= values.rank(), "sample_weight ", weight.shape(),
               " has more axes than the values ", values.shape());
    // Broadcasting the weight changes no product but counts each position it applies to.
    weight = ops::broadcast_like(weight, values);
    values = values * weight;
    if (weight_rank > 1) weight = reduce(weight, trailing_axes(1, weight_rank), false);
  }
  if (values.rank() > 1) values = reduce(values, trailing_axes(1, values.rank()), false);
  return {values, weight};
}

}  // namespace

Sum::Sum(std::string name) : Metric(std::move(name)), total_(add_variable("total")) {}

void Sum::update_values(const Tensor& values, const Tensor& sample_weight) {
  with_error_context({}, values, sample_weight, [&] {
    total_.assign_add(
        ops::sum(reduce_to_samplewise_values(values, sample_weight, ops::sum).values));
  });
}

void Sum::update_state(const Tensor&, const Tensor& y_pred, const Tensor& sample_weight) {
  update_values(y_pred, sample_weight);
}

Tensor Sum::result() const {
  return total_.value();
}

MetricPtr Sum::from_config(const Config& config) {
  return std::make_shared<Sum>(read_common_config(config, "Sum", "sum"));
}

Mean::Mean(std::string name)
    : Metric(std::move(name)), total_(add_variable("total")), count_(add_variable("count")) {}

void Mean::update_values(const Tensor& values, const Tensor& sample_weight) {
  with_error_context({}, values, sample_weight, [&] { accumulate(values, sample_weight); });
}

void Mean::accumulate(const Tensor& values, const Tensor& sample_weight) {
  const auto [samples, weight] = reduce_to_samplewise_values(values, sample_weight, ops::mean);
  total_.assign_add(ops::sum(samples));
  if (weight.defined())
    count_.assign_add(ops::sum(weight));
  else if (samples.rank() >= 1)
    count_.assign_add(ops::size_of(samples, {0}));
  else
    count_.assign_add(scalar(1, DType::f32, samples.device()));
}

void Mean::update_state(const Tensor&, const Tensor& y_pred, const Tensor& sample_weight) {
  update_values(y_pred, sample_weight);
}

Tensor Mean::result() const {
  return divide_no_nan(total_.value(), count_.value());
}

MetricPtr Mean::from_config(const Config& config) {
  return std::make_shared<Mean>(read_common_config(config, "Mean", "mean"));
}

MeanMetricWrapper::MeanMetricWrapper(PerSampleFn fn, std::string name, std::string fn_name)
    : Mean(std::move(name)), fn_(std::move(fn)), fn_name_(std::move(fn_name)) {
  KILN_CHECK(fn_ != nullptr, "MeanMetricWrapper '", this->name(), "': no function");
}

void MeanMetricWrapper::update_state(const Tensor& y_true, const Tensor& y_pred,
                                     const Tensor& sample_weight) {
  with_error_context(y_true, y_pred, sample_weight,
                     [&] { accumulate(fn_(y_true, y_pred), sample_weight); });
}

Config MeanMetricWrapper::get_config() const {
  Config config = Mean::get_config();
  if (!fn_name_.empty()) config.set("fn", fn_name_);
  return config;
}

}  // namespace kiln::metrics
