#pragma once
// Metrics by Keras name, class name or config, as model.compile(metrics=[...]) and YAML runs
// name them; one-line registration of custom metrics. Every call returns a fresh metric (metrics
// hold state).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/shape.h"
#include "kiln/training/metrics/metric.h"
#include "kiln/training/metrics/reduction_metrics.h"

namespace kiln::metrics {

// Builds a metric from the "config" map of its Keras config (empty = defaults; "name" given =
// that name). It should reject keys it does not know (Config::check_keys).
using MetricFactory = std::function<MetricPtr(const Config& config)>;

// By name, as keras.metrics.get: a class name ("SparseCategoricalAccuracy"), its snake-case
// name ("sparse_categorical_accuracy"), a short alias ("acc", "mae", "mse", "rmse") or a
// registered custom name. Built-in metrics get their Keras default names ("mse" gives
// MeanSquaredError named "mean_squared_error"). Unknown names are errors with suggestions.
MetricPtr get(std::string_view name);

// As model.compile resolves a metric for an output (keras.trainers.compile_utils.get_metric):
// "accuracy"/"acc" (any case) becomes BinaryAccuracy when y_pred's last dim is 1,
// SparseCategoricalAccuracy when y_true has one axis less than y_pred or a last dim of 1,
// CategoricalAccuracy otherwise; any other name is resolved as get(name). The metric is named
// what the user wrote.
MetricPtr get(std::string_view name, const Shape& y_true_shape, const Shape& y_pred_shape);
// Throws, as the get above would, when compile could not resolve `name` for any output: lets a
// run file's metrics be checked before the output shapes are known.
void check_compile_name(std::string_view name);

// From a name string or {"class_name": ..., "config": {...}} (keras.metrics.serialize's form;
// "module" and "registered_name" are accepted and ignored).
MetricPtr from_config(const Config& config);
// {"class_name": ..., "config": metric.get_config()}.
Config serialize(const Metric& metric);

// Makes `name` a metric: the mean of per_sample over all samples (MeanMetricWrapper), usable by
// name everywhere (get, compile, YAML) and as the "fn" of a MeanMetricWrapper config.
void register_metric(const std::string& name, PerSampleFn per_sample);
// Makes `class_name` a metric class for get and from_config.
void register_metric_class(const std::string& class_name, MetricFactory factory);

// Every name get() accepts, sorted.
std::vector<std::string> known_names();

}  // namespace kiln::metrics
