// Every metric against keras.metrics (metric_goldens.inc): built from Keras's own config, updated
// eagerly over three batches without and with sample weights, result() after each update and
// after reset_state().
#include <gtest/gtest.h>

#include <vector>

#include "kiln/training/metrics/registry.h"
#include "tests/training/metrics/metric_golden.h"

namespace kiln::metrics {
namespace {

using testing::MetricBatch;
using testing::MetricGolden;

std::vector<double> run_eagerly(Metric& metric, const MetricGolden& golden, bool weighted) {
  std::vector<double> results;
  for (const MetricBatch& batch : golden.batches) {
    metric.update_state(testing::y_true(golden, batch), testing::y_pred(batch),
                        weighted ? testing::sample_weight(batch) : Tensor());
    const Tensor result = metric.result();
    EXPECT_EQ(result.dtype(), DType::f32);
    EXPECT_EQ(result.shape(), Shape{});
    results.push_back(result.item<double>());
  }
  metric.reset_state();
  results.push_back(metric.result().item<double>());
  return results;
}

TEST(MetricGoldens, MatchKerasOverThreeBatches) {
  ASSERT_EQ(testing::metric_goldens().size(), 36u);
  for (const MetricGolden& golden : testing::metric_goldens()) {
    SCOPED_TRACE(golden.name);
    const MetricPtr metric = from_config(Config::from_json(golden.config));
    testing::expect_results_near(run_eagerly(*metric, golden, false), golden.unweighted);
    testing::expect_results_near(run_eagerly(*metric, golden, true), golden.weighted);
  }
}

}  // namespace
}  // namespace kiln::metrics
