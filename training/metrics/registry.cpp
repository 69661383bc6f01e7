#include "kiln/training/metrics/registry.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/training/metrics/accuracy_functions.h"
#include "kiln/training/metrics/accuracy_metrics.h"
#include "kiln/training/metrics/auc.h"
#include "kiln/training/metrics/metric_config.h"
#include "kiln/training/metrics/precision_recall.h"
#include "kiln/training/metrics/regression_metrics.h"

namespace kiln::metrics {
namespace {

constexpr std::string_view kWrapperClass = "MeanMetricWrapper";

MetricPtr wrapper_from_config(const Config& config);

// The built-in names; custom ones are added by register_metric(_class).
struct Registry {
  Registry();
  std::mutex mutex;
  // Keras class name -> factory from the class's config.
  std::map<std::string, MetricFactory, std::less<>> classes;
  // Snake-case class names and short aliases -> class name.
  std::map<std::string, std::string, std::less<>> aliases;
  // Per-sample functions by name: the "fn" of MeanMetricWrapper configs, and custom metrics.
  std::map<std::string, PerSampleFn, std::less<>> functions;
};

Registry::Registry() {
  classes = {
      {"Mean", Mean::from_config},
      {"Sum", Sum::from_config},
      {std::string(kWrapperClass), wrapper_from_config},
      {"Accuracy", Accuracy::from_config},
      {"BinaryAccuracy", BinaryAccuracy::from_config},
      {"CategoricalAccuracy", CategoricalAccuracy::from_config},
      {"SparseCategoricalAccuracy", SparseCategoricalAccuracy::from_config},
      {"TopKCategoricalAccuracy", TopKCategoricalAccuracy::from_config},
      {"SparseTopKCategoricalAccuracy", SparseTopKCategoricalAccuracy::from_config},
      {"Precision", Precision::from_config},
      {"Recall", Recall::from_config},
      {"AUC", AUC::from_config},
      {"MeanSquaredError", MeanSquaredError::from_config},
      {"MeanAbsoluteError", MeanAbsoluteError::from_config},
      {"RootMeanSquaredError", RootMeanSquaredError::from_config},
  };
  aliases = {
      {"mean", "Mean"},
      {"sum", "Sum"},
      {"accuracy", "Accuracy"},
      {"acc", "Accuracy"},
      {"binary_accuracy", "BinaryAccuracy"},
      {"categorical_accuracy", "CategoricalAccuracy"},
      {"sparse_categorical_accuracy", "SparseCategoricalAccuracy"},
      {"top_k_categorical_accuracy", "TopKCategoricalAccuracy"},
      {"sparse_top_k_categorical_accuracy", "SparseTopKCategoricalAccuracy"},
      {"precision", "Precision"},
      {"recall", "Recall"},
      {"auc", "AUC"},
      {"mean_squared_error", "MeanSquaredError"},
      {"mse", "MeanSquaredError"},
      {"MSE", "MeanSquaredError"},
      {"mean_absolute_error", "MeanAbsoluteError"},
      {"mae", "MeanAbsoluteError"},
      {"MAE", "MeanAbsoluteError"},
      {"root_mean_squared_error", "RootMeanSquaredError"},
      {"rmse", "RootMeanSquaredError"},
      {"RMSE", "RootMeanSquaredError"},
  };
  functions = {
      {"accuracy", [](const Tensor& t, const Tensor& p) { return accuracy(t, p); }},
      {"binary_accuracy", [](const Tensor& t, const Tensor& p) { return binary_accuracy(t, p); }},
      {"categorical_accuracy", categorical_accuracy},
      {"sparse_categorical_accuracy", sparse_categorical_accuracy},
      {"top_k_categorical_accuracy",
       [](const Tensor& t, const Tensor& p) { return top_k_categorical_accuracy(t, p); }},
      {"sparse_top_k_categorical_accuracy",
       [](const Tensor& t, const Tensor& p) { return sparse_top_k_categorical_accuracy(t, p); }},
      {"mean_squared_error", mean_squared_error},
      {"mean_absolute_error", mean_absolute_error},
  };
}

Registry& registry() {
  static Registry r;
  return r;
}

bool taken_locked(const Registry& r, std::string_view name) {
  return r.classes.contains(name) || r.aliases.contains(name) || r.functions.contains(name);
}

std::vector<std::string> names_locked(const Registry& r) {
  std::set<std::string> names;
  for (const auto& [name, factory] : r.classes)
    if (name != kWrapperClass) names.insert(name);
  for (const auto& [name, target] : r.aliases) names.insert(name);
  for (const auto& [name, fn] : r.functions) names.insert(name);
  return {names.begin(), names.end()};
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "accuracy" and "acc" (any case): compile picks the accuracy class by the output's shape.
bool is_accuracy_alias(std::string_view name) {
  const std::string lower = lowercase(name);
  return lower == "accuracy" || lower == "acc";
}

bool starts_upper(std::string_view s) {
  return !s.empty() && std::isupper(static_cast<unsigned char>(s[0])) != 0;
}

// Names that differ only in case ("Precision", "precision") would both be suggested; keep the one
// written like the typed name (class names start upper-case, function names lower-case).
std::vector<std::string> suggestion_candidates(std::string_view typed,
                                               const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    const bool shadowed = std::any_of(names.begin(), names.end(), [&](const std::string& other) {
      return other != name && lowercase(other) == lowercase(name) &&
             starts_upper(other) == starts_upper(typed);
    });
    if (!shadowed) out.push_back(name);
  }
  return out;
}

// A factory building a MeanMetricWrapper over a registered function (default name: its name).
MetricFactory function_factory(std::string fn_name, PerSampleFn fn) {
  return [fn_name = std::move(fn_name), fn = std::move(fn)](const Config& config) {
    std::string name = read_common_config(config, kWrapperClass, fn_name);
    return std::make_shared<MeanMetricWrapper>(fn, std::move(name), fn_name);
  };
}

// The factory for a name: a class (MeanMetricWrapper only with allow_wrapper, since it needs a
// config naming its function), an alias of one, or a per-sample function. The lock is released
// before the factory runs, so factories may use the registry.
MetricFactory resolve(std::string_view name, bool allow_wrapper) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  if (const auto it = r.classes.find(name);
      it != r.classes.end() && (allow_wrapper || name != kWrapperClass))
    return it->second;
  if (const auto it = r.aliases.find(name); it != r.aliases.end()) return r.classes.at(it->second);
  if (const auto it = r.functions.find(name); it != r.functions.end())
    return function_factory(it->first, it->second);
  const std::string hint = did_you_mean(name, suggestion_candidates(name, names_locked(r)));
  throw Error(detail::concat("unknown metric '", name, "'", hint.empty() ? "" : "; ", hint));
}

// A MeanMetricWrapper from its config, whose "fn" names a registered function: a string, or
// Keras's serialized function ({"class_name": "function", "config": "mean_absolute_error"}).
MetricPtr wrapper_from_config(const Config& config) {
  std::string name = read_common_config(config, kWrapperClass, "mean_metric_wrapper", {"fn"});
  const Config* fn = config.find("fn");
  KILN_CHECK(fn != nullptr, config.where(), "MeanMetricWrapper: the config needs 'fn'");
  const std::string fn_name = fn->is_map() ? (*fn)["config"].as_string() : fn->as_string();
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  const auto it = r.functions.find(fn_name);
  if (it == r.functions.end()) {
    std::vector<std::string> known;
    for (const auto& [known_name, f] : r.functions) known.push_back(known_name);
    const std::string hint = did_you_mean(fn_name, known);
    throw Error(detail::concat(fn->where(), "MeanMetricWrapper: unknown metric function '", fn_name,
                               "'", hint.empty() ? "" : "; ", hint));
  }
  return std::make_shared<MeanMetricWrapper>(it->second, std::move(name), fn_name);
}

// keras.trainers.compile_utils.is_binary_or_sparse_categorical picks the accuracy that fits the
// shapes. Unknown dims (-1) count as neither 1 nor more than 1.
std::string_view accuracy_class_for(const Shape& y_true, const Shape& y_pred) {
  const int64_t true_last = y_true.rank() > 0 ? y_true.dim(-1) : -1;
  const int64_t pred_last = y_pred.rank() > 0 ? y_pred.dim(-1) : -1;
  if (pred_last == 1) return "BinaryAccuracy";
  if (y_true.rank() < y_pred.rank() || (true_last == 1 && pred_last > 1))
    return "SparseCategoricalAccuracy";
  return "CategoricalAccuracy";
}

}  // namespace

MetricPtr get(std::string_view name) {
  return resolve(name, false)(Config::map());
}

void check_compile_name(std::string_view name) {
  if (!is_accuracy_alias(name)) resolve(name, false);
}

MetricPtr get(std::string_view name, const Shape& y_true_shape, const Shape& y_pred_shape) {
  const std::string_view target =
      is_accuracy_alias(name) ? accuracy_class_for(y_true_shape, y_pred_shape) : name;
  return resolve(target, false)(Config::map().set("name", name));
}

MetricPtr from_config(const Config& config) {
  if (config.is_string()) return get(config.as_string());
  KILN_CHECK(config.is_map(), config.where(),
             "a metric config must be a name or a map with 'class_name', got ",
             Config::type_name(config.type()));
  config.check_keys({"class_name", "config", "module", "registered_name"}, "metric config");
  const Config* inner = config.find("config");
  return resolve(config["class_name"].as_string(),
                 true)(inner != nullptr && !inner->is_null() ? *inner : Config::map());
}

Config serialize(const Metric& metric) {
  return Config::map().set("class_name", metric.class_name()).set("config", metric.get_config());
}

void register_metric(const std::string& name, PerSampleFn per_sample) {
  KILN_CHECK(per_sample != nullptr, "register_metric('", name, "'): no function");
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  KILN_CHECK(!taken_locked(r, name), "metric '", name, "' is already registered");
  r.functions.emplace(name, std::move(per_sample));
}

void register_metric_class(const std::string& class_name, MetricFactory factory) {
  KILN_CHECK(factory != nullptr, "register_metric_class('", class_name, "'): no factory");
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  KILN_CHECK(!taken_locked(r, class_name), "metric '", class_name, "' is already registered");
  r.classes.emplace(class_name, std::move(factory));
}

std::vector<std::string> known_names() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  return names_locked(r);
}

}  // namespace kiln::metrics
