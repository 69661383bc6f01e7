#pragma once
// compile's metrics over the model's outputs (Keras's CompileMetrics): the loss tracker, then
// each metric for each output, named as Keras names them in the logs ("loss", "accuracy",
// "out_a_accuracy", "weighted_mae", ...).
#include <memory>
#include <string>
#include <vector>

#include "kiln/training/metrics/metric.h"
#include "kiln/training/metrics/reduction_metrics.h"
#include "kiln/training/model/compile_options.h"

namespace kiln {

class Model;

class CompiledMetrics {
 public:
  struct Entry {
    size_t output;
    metrics::MetricPtr metric;
    bool weighted;  // from weighted_metrics: takes the sample weights
  };
  // compile's metrics resolved for targets and predictions of these shapes (a name such as
  // "accuracy" picks the accuracy that fits them), with their log names after "loss". New
  // objects, except those the user gave.
  struct Resolved {
    std::vector<Entry> entries;
    std::vector<std::string> names;
  };
  static Resolved resolve(const CompileOptions& options, const Model& model,
                          const std::vector<Shape>& targets, const std::vector<Shape>& predictions);

  CompiledMetrics();
  // Takes the metrics `resolve` found (before the first step).
  void set(Resolved resolved);

  // Updates the loss tracker with the batch's loss and each metric with its output; returns the
  // running values in names() order. masks: the model's output masks, which weigh masked steps
  // 0. Under data parallelism the replicas' updates are summed, so every replica holds the
  // global batch's metrics.
  std::vector<Tensor> update(const Tensor& loss, const std::vector<Tensor>& y,
                             const std::vector<Tensor>& predictions,
                             const std::vector<Tensor>& sample_weight,
                             const std::vector<Tensor>& masks);
  void reset();
  // "loss", then the metrics' names.
  const std::vector<std::string>& names() const { return names_; }
  // The loss tracker's and the metrics' variables.
  std::vector<Variable> variables() const;

 private:
  std::shared_ptr<metrics::Mean> loss_tracker_;
  std::vector<Entry> entries_;
  std::vector<std::string> names_;
};

}  // namespace kiln
