// Metric names: Keras's names and aliases, the accuracy chosen from the output shapes, custom
// metrics registered in one line, and errors that suggest the intended name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "kiln/framework/ops/ops.h"
#include "kiln/training/metrics/registry.h"

namespace kiln::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

TEST(MetricRegistry, KerasNamesAndAliases) {
  EXPECT_THAT(known_names(), IsSupersetOf({"accuracy",
                                           "acc",
                                           "binary_accuracy",
                                           "categorical_accuracy",
                                           "sparse_categorical_accuracy",
                                           "top_k_categorical_accuracy",
                                           "sparse_top_k_categorical_accuracy",
                                           "precision",
                                           "recall",
                                           "auc",
                                           "mae",
                                           "mean_absolute_error",
                                           "mse",
                                           "mean_squared_error",
                                           "rmse",
                                           "root_mean_squared_error",
                                           "mean",
                                           "sum",
                                           "Accuracy",
                                           "AUC",
                                           "SparseCategoricalAccuracy",
                                           "RootMeanSquaredError"}));
  const std::vector<std::tuple<const char*, const char*, const char*>> expected = {
      {"acc", "Accuracy", "accuracy"},
      {"sparse_categorical_accuracy", "SparseCategoricalAccuracy", "sparse_categorical_accuracy"},
      {"TopKCategoricalAccuracy", "TopKCategoricalAccuracy", "top_k_categorical_accuracy"},
      {"mae", "MeanAbsoluteError", "mean_absolute_error"},
      {"mse", "MeanSquaredError", "mean_squared_error"},
      {"rmse", "RootMeanSquaredError", "root_mean_squared_error"},
      {"auc", "AUC", "auc"},
      {"recall", "Recall", "recall"},
  };
  for (const auto& [name, class_name, default_name] : expected) {
    const MetricPtr metric = get(name);
    EXPECT_EQ(metric->class_name(), class_name) << name;
    EXPECT_EQ(metric->name(), default_name) << name;
  }
}

TEST(MetricRegistry, EveryGetIsAFreshMetric) {
  const MetricPtr a = get("mae");
  const MetricPtr b = get("mae");
  a->update_state(tensor({1, 2}, {2, 1}), tensor({0, 0}, {2, 1}));
  EXPECT_FLOAT_EQ(a->result().item<float>(), 1.5f);
  EXPECT_FLOAT_EQ(b->result().item<float>(), 0.0f);
}

TEST(MetricRegistry, AccuracyFollowsTheOutputShapesAndKeepsTheUsersName) {
  const auto resolved = [](const char* name, const Shape& y_true, const Shape& y_pred) {
    const MetricPtr metric = get(name, y_true, y_pred);
    EXPECT_EQ(metric->name(), name);
    return metric->class_name();
  };
  EXPECT_EQ(resolved("accuracy", {-1, 1}, {-1, 1}), "BinaryAccuracy");
  EXPECT_EQ(resolved("acc", {-1}, {-1, 1}), "BinaryAccuracy");
  EXPECT_EQ(resolved("accuracy", {-1}, {-1, 10}), "SparseCategoricalAccuracy");
  EXPECT_EQ(resolved("ACC", {-1, 1}, {-1, 10}), "SparseCategoricalAccuracy");
  EXPECT_EQ(resolved("accuracy", {-1, 20, 1}, {-1, 20, 10}), "SparseCategoricalAccuracy");
  EXPECT_EQ(resolved("Accuracy", {-1, 10}, {-1, 10}), "CategoricalAccuracy");
  // Other names resolve as get(name) but keep what the user wrote, as Keras's compile does.
  EXPECT_EQ(resolved("mse", {-1, 3}, {-1, 3}), "MeanSquaredError");
  EXPECT_EQ(resolved("binary_accuracy", {-1, 10}, {-1, 10}), "BinaryAccuracy");
}

TEST(MetricRegistry, CustomPerSampleMetricByName) {
  // The share of predictions within 0.5 of the target.
  register_metric("within_half_metric", [](const Tensor& y_true, const Tensor& y_pred) {
    return ops::mean(ops::cast(ops::less(ops::abs(y_true - y_pred), 0.5), DType::f32), {-1});
  });
  const MetricPtr metric = get("within_half_metric");
  EXPECT_EQ(metric->class_name(), "MeanMetricWrapper");
  EXPECT_EQ(metric->name(), "within_half_metric");
  metric->update_state(tensor({1, 2, 3, 4}, {2, 2}), tensor({1.2f, 3, 3, 4.4f}, {2, 2}),
                       tensor({1, 3}));
  EXPECT_FLOAT_EQ(metric->result().item<float>(), (0.5f * 1 + 1.0f * 3) / 4);

  const Config config = serialize(*metric);
  EXPECT_EQ(config["config"]["fn"].as_string(), "within_half_metric");
  EXPECT_EQ(from_config(config)->name(), "within_half_metric");
  EXPECT_EQ(get("within_half_metric", {-1, 2}, {-1, 2})->class_name(), "MeanMetricWrapper");
  EXPECT_THAT(known_names(), ::testing::Contains("within_half_metric"));
  const PerSampleFn identity = [](const Tensor& y_true, const Tensor&) { return y_true; };
  EXPECT_THROW(register_metric("within_half_metric", identity), Error);
  EXPECT_THROW(register_metric("auc", identity), Error);
}

// A Keras-style custom class: the largest absolute error seen.
class MaxAbsoluteError : public Metric {
 public:
  explicit MaxAbsoluteError(std::string name)
      : Metric(std::move(name)), max_(add_variable("max")) {}
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor&) override {
    max_.assign(ops::maximum(max_.value(), ops::max(ops::abs(y_true - y_pred))));
  }
  Tensor result() const override { return max_.value(); }
  std::string class_name() const override { return "MaxAbsoluteError"; }

 private:
  Variable max_;
};

TEST(MetricRegistry, CustomClassByNameAndConfig) {
  register_metric_class("MaxAbsoluteError", [](const Config& config) {
    config.check_keys({"name", "dtype"}, "metric MaxAbsoluteError");
    return std::make_shared<MaxAbsoluteError>(config.get_string("name", "max_absolute_error"));
  });
  const MetricPtr metric = get("MaxAbsoluteError");
  EXPECT_EQ(metric->name(), "max_absolute_error");
  metric->update_state(tensor({1, 2}), tensor({1.5f, 0}));
  EXPECT_FLOAT_EQ(metric->result().item<float>(), 2.0f);
  EXPECT_EQ(from_config(serialize(*metric))->name(), "max_absolute_error");
  EXPECT_EQ(get("MaxAbsoluteError", {-1}, {-1})->name(), "MaxAbsoluteError");
}

TEST(MetricRegistry, UnknownNameSuggestsTheClosest) {
  try {
    get("acuracy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown metric 'acuracy'; did you mean 'accuracy'?"));
  }
  try {
    get("presicion", {-1, 1}, {-1, 1});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown metric 'presicion'; did you mean 'precision'?"));
  }
  // MeanMetricWrapper needs its function: only a config can make one.
  EXPECT_THROW(get("MeanMetricWrapper"), Error);
}

TEST(MetricRegistry, UpdateErrorsNameTheMetricAndTheShapes) {
  const MetricPtr metric = get("categorical_accuracy");
  try {
    metric->update_state(zeros({4, 3}), zeros({4, 3}), zeros({5}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("CategoricalAccuracy 'categorical_accuracy'.update_state("
                                    "y_true: float32[4, 3], y_pred: float32[4, 3], "
                                    "sample_weight: float32[5]): "));
  }
}

}  // namespace
}  // namespace kiln::metrics
