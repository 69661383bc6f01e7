#include "kiln/training/metrics/registry.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
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

// A metric name: a class (or an alias of one), a per-sample function (the "fn" of
// MeanMetricWrapper configs, and custom metrics), or both ("accuracy", "mean_squared_error").
struct Entry {
  MetricFactory factory;  // from the class's config; null for a function alone
  PerSampleFn function;   // null for a class alone
};

// The built-in names; custom ones are added by register_metric(_class).
NamedRegistry<Entry>& registry() {
  static NamedRegistry<Entry> r = [] {
    std::map<std::string, Entry> entries;
    const auto add_class = [&](const std::string& name, const MetricFactory& factory,
                               std::initializer_list<const char*> aliases) {
      entries[name].factory = factory;
      for (const char* alias : aliases) entries[alias].factory = factory;
    };
    add_class("Mean", Mean::from_config, {"mean"});
    add_class("Sum", Sum::from_config, {"sum"});
    add_class("Accuracy", Accuracy::from_config, {"accuracy", "acc"});
    add_class("BinaryAccuracy", BinaryAccuracy::from_config, {"binary_accuracy"});
    add_class("CategoricalAccuracy", CategoricalAccuracy::from_config, {"categorical_accuracy"});
    add_class("SparseCategoricalAccuracy", SparseCategoricalAccuracy::from_config,
              {"sparse_categorical_accuracy"});
    add_class("TopKCategoricalAccuracy", TopKCategoricalAccuracy::from_config,
              {"top_k_categorical_accuracy"});
    add_class("SparseTopKCategoricalAccuracy", SparseTopKCategoricalAccuracy::from_config,
              {"sparse_top_k_categorical_accuracy"});
    add_class("Precision", Precision::from_config, {"precision"});
    add_class("Recall", Recall::from_config, {"recall"});
    add_class("AUC", AUC::from_config, {"auc"});
    add_class("MeanSquaredError", MeanSquaredError::from_config,
              {"mean_squared_error", "mse", "MSE"});
    add_class("MeanAbsoluteError", MeanAbsoluteError::from_config,
              {"mean_absolute_error", "mae", "MAE"});
    add_class("RootMeanSquaredError", RootMeanSquaredError::from_config,
              {"root_mean_squared_error", "rmse", "RMSE"});
    entries["accuracy"].function = [](const Tensor& t, const Tensor& p) { return accuracy(t, p); };
    entries["binary_accuracy"].function = [](const Tensor& t, const Tensor& p) {
      return binary_accuracy(t, p);
    };
    entries["categorical_accuracy"].function = categorical_accuracy;
    entries["sparse_categorical_accuracy"].function = sparse_categorical_accuracy;
    entries["top_k_categorical_accuracy"].function = [](const Tensor& t, const Tensor& p) {
      return top_k_categorical_accuracy(t, p);
    };
    entries["sparse_top_k_categorical_accuracy"].function = [](const Tensor& t, const Tensor& p) {
      return sparse_top_k_categorical_accuracy(t, p);
    };
    entries["mean_squared_error"].function = mean_squared_error;
    entries["mean_absolute_error"].function = mean_absolute_error;

    NamedRegistry<Entry> built("metric");
    for (auto& [name, entry] : entries) built.add(name, std::move(entry));
    // Only from a config naming its function: neither offered nor found by name alone.
    built.add(kWrapperClass, Entry{wrapper_from_config, nullptr}, {},
              NamedRegistry<Entry>::Listed::no);
    return built;
  }();
  return r;
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
  const NamedRegistry<Entry>& r = registry();
  const std::optional<Entry> entry = r.find(name);
  if (!entry || (name == kWrapperClass && !allow_wrapper))
    throw Error(r.unknown(name, "", suggestion_candidates(name, r.names())));
  if (entry->factory) return entry->factory;
  return function_factory(std::string(name), entry->function);
}

// A MeanMetricWrapper from its config, whose "fn" names a registered function: a string, or
// Keras's serialized function ({"class_name": "function", "config": "mean_absolute_error"}).
MetricPtr wrapper_from_config(const Config& config) {
  std::string name = read_common_config(config, kWrapperClass, "mean_metric_wrapper", {"fn"});
  const Config* fn = config.find("fn");
  KILN_CHECK(fn != nullptr, config.where(), "MeanMetricWrapper: the config needs 'fn'");
  const std::string fn_name = fn->is_map() ? (*fn)["config"].as_string() : fn->as_string();
  const std::optional<Entry> entry = registry().find(fn_name);
  if (!entry || !entry->function)
    throw Error(fn->where() + "MeanMetricWrapper: " +
                registry().unknown(fn_name, "", registry().names_if([](const Entry& e) {
                  return e.function != nullptr;
                })));
  return std::make_shared<MeanMetricWrapper>(entry->function, std::move(name), fn_name);
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
  registry().add(name, Entry{nullptr, std::move(per_sample)});
}

void register_metric_class(const std::string& class_name, MetricFactory factory) {
  KILN_CHECK(factory != nullptr, "register_metric_class('", class_name, "'): no factory");
  registry().add(class_name, Entry{std::move(factory), nullptr});
}

std::vector<std::string> known_names() {
  return registry().names();
}

}  // namespace kiln::metrics
