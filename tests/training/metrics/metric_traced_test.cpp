// Metrics updated inside a kiln::function whose signature leaves the batch dim unknown: one
// trace serves every batch size, and the state ends where the eager updates leave it.
#include <gtest/gtest.h>

#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/training/metrics/registry.h"
#include "tests/training/metrics/metric_golden.h"

namespace kiln::metrics {
namespace {

using testing::MetricBatch;
using testing::MetricGolden;

// The batch's shape with the batch dim unknown.
TensorSpec batch_spec(const std::vector<int64_t>& dims, DType dtype) {
  Shape shape(dims);
  shape[0] = -1;
  return TensorSpec(shape, dtype);
}

struct TracedRun {
  std::vector<double> results;
  int64_t traces = 0;
};

TracedRun run_traced(Metric& metric, const MetricGolden& golden, bool weighted) {
  const MetricBatch& first = golden.batches.front();
  std::vector<TensorSpec> signature = {batch_spec(first.true_shape, testing::label_dtype(golden)),
                                       batch_spec(first.pred_shape, DType::f32),
                                       batch_spec(first.weight_shape, DType::f32)};
  // The unweighted step takes the weight argument too but ignores it, so both share one shape.
  auto step = kiln::function(
      [&](const Tensor& y_true, const Tensor& y_pred, const Tensor& weight) {
        metric.update_state(y_true, y_pred, weighted ? weight : Tensor());
        return metric.result();
      },
      {.name = "metric_step", .input_signature = signature});
  TracedRun run;
  for (const MetricBatch& batch : golden.batches)
    run.results.push_back(
        step(testing::y_true(golden, batch), testing::y_pred(batch), testing::sample_weight(batch))
            .item<double>());
  run.traces = step.stats().traces;
  return run;
}

TEST(MetricTraced, OneTraceForEveryBatchSizeSameStateAsEager) {
  for (const MetricGolden& golden : testing::metric_goldens()) {
    SCOPED_TRACE(golden.name);
    for (const bool weighted : {false, true}) {
      SCOPED_TRACE(weighted ? "weighted" : "unweighted");
      const MetricPtr traced = from_config(Config::from_json(golden.config));
      const TracedRun run = run_traced(*traced, golden, weighted);
      EXPECT_EQ(run.traces, 1);
      std::vector<double> want = weighted ? golden.weighted : golden.unweighted;
      want.pop_back();  // the value after reset_state
      testing::expect_results_near(run.results, want);

      const MetricPtr eager = from_config(Config::from_json(golden.config));
      for (const MetricBatch& batch : golden.batches)
        eager->update_state(testing::y_true(golden, batch), testing::y_pred(batch),
                            weighted ? testing::sample_weight(batch) : Tensor());
      ASSERT_EQ(traced->variables().size(), eager->variables().size());
      for (size_t i = 0; i < eager->variables().size(); ++i)
        testing::expect_results_near(traced->variables()[i].value().to_vector<double>(),
                                     eager->variables()[i].value().to_vector<double>());
    }
  }
}

}  // namespace
}  // namespace kiln::metrics
