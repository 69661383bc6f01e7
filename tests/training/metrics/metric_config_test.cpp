// Configs: kiln writes what Keras writes, reads it back to an equal metric, and rejects keys it
// does not know.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/training/metrics/auc.h"
#include "kiln/training/metrics/registry.h"
#include "tests/training/metrics/metric_golden.h"

namespace kiln::metrics {
namespace {

using ::testing::HasSubstr;

TEST(MetricConfig, SerializeMatchesKerasAndRoundTrips) {
  for (const testing::MetricGolden& golden : testing::metric_goldens()) {
    SCOPED_TRACE(golden.name);
    const MetricPtr metric = from_config(Config::from_json(golden.config));
    const Config config = serialize(*metric);
    EXPECT_EQ(config["class_name"].as_string(),
              Config::from_json(golden.config)["class_name"].as_string());
    EXPECT_EQ(config["config"], testing::keras_config_in_kiln_form(golden)) << config.to_json();
    const MetricPtr again = from_config(Config::from_json(config.to_json()));
    EXPECT_EQ(serialize(*again), config);
    EXPECT_EQ(again->variables().size(), metric->variables().size());
  }
}

TEST(MetricConfig, NamesAStringOrAClassWithDefaults) {
  EXPECT_EQ(from_config(Config("auc"))->class_name(), "AUC");
  const MetricPtr precision = from_config(Config::from_json(R"({"class_name": "Precision"})"));
  EXPECT_EQ(precision->name(), "precision");
  EXPECT_EQ(precision->variables()[0].name(), "precision/true_positives");
  const MetricPtr wrapper = from_config(Config::from_json(
      R"({"class_name": "MeanMetricWrapper", "config": {"name": "l1", "fn": "mean_absolute_error"}})"));
  EXPECT_EQ(wrapper->name(), "l1");
  EXPECT_EQ(wrapper->get_config()["fn"].as_string(), "mean_absolute_error");
}

TEST(MetricConfig, UnknownKeysAndValuesAreErrorsWithSuggestions) {
  const auto message = [](const char* json) {
    try {
      from_config(Config::from_json(json));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message(R"({"class_name": "AUC", "config": {"num_treshold": 10}})"),
              HasSubstr("unknown key 'num_treshold' for metric AUC (did you mean "
                        "'num_thresholds'?)"));
  EXPECT_THAT(message(R"({"class_name": "AUC", "config": {"curve": "RPC"}})"),
              HasSubstr("AUC: unknown curve 'RPC'; did you mean 'ROC'"));
  EXPECT_THAT(message(R"({"class_name": "Precison"})"),
              HasSubstr("unknown metric 'Precison'; did you mean 'Precision'?"));
  EXPECT_THAT(message(R"({"class_name": "Mean", "config": {"dtype": "float16"}})"),
              HasSubstr("metric Mean: dtype must be float32"));
  EXPECT_THAT(message(R"({"class_name": "Precision", "config": {"thresholds": [0.2, 0.5]}})"),
              HasSubstr("Precision: one threshold is supported"));
  EXPECT_THAT(
      message(R"({"class_name": "MeanMetricWrapper", "config": {"fn": "mean_absolut_error"}})"),
      HasSubstr("MeanMetricWrapper: unknown metric 'mean_absolut_error'; did you mean "
                "'mean_absolute_error'?"));
  EXPECT_THAT(message(R"({"class_name": "AUC", "config": {"multi_label": true}})"),
              HasSubstr("multi_label=true needs num_labels"));
}

TEST(MetricConfig, AUCThresholdsAreSortedWithEpsilonEnds) {
  AUCOptions options;
  options.thresholds = {0.8, 0.1, 0.35};
  const AUC auc(options);
  EXPECT_EQ(auc.thresholds(), (std::vector<double>{-1e-7, 0.1, 0.35, 0.8, 1 + 1e-7}));
  EXPECT_EQ(auc.get_config()["num_thresholds"].as_int(), 5);
  EXPECT_EQ(auc.get_config()["thresholds"].as_double_list(), (std::vector<double>{0.1, 0.35, 0.8}));
}

}  // namespace
}  // namespace kiln::metrics
