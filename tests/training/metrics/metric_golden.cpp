#include "tests/training/metrics/metric_golden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace kiln::metrics::testing {

#include "tests/training/metrics/metric_goldens.inc"

const std::vector<MetricGolden>& metric_goldens() {
  return kMetricGoldens;
}

Config keras_config_in_kiln_form(const MetricGolden& golden) {
  Config config = Config::from_json(golden.config)["config"];
  if (Config* weights = config.find("label_weights"); weights != nullptr && weights->is_map())
    *weights = Config((*weights)["config"]["value"].as_double_list());
  if (Config* fn = config.find("fn"); fn != nullptr && fn->is_map())
    *fn = Config((*fn)["config"].as_string());
  return config;
}

void expect_results_near(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0, std::abs(want[i]))) << "result " << i;
}

}  // namespace kiln::metrics::testing
