#pragma once
// What compile() sets up: the resolved optimizer, losses and metrics, and the three traced steps
// (train, test, predict). Each step is one kiln::function whose input signature leaves the batch
// dim unknown, so a whole fit (full batches, the smaller last one, validation) and any number of
// predict calls with different batch sizes trace once per step; new batch sizes only add a cheap
// plan, never a retrace.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/losses/loss.h"
#include "kiln/optimizers/optimizer.h"
#include "kiln/training/callbacks/callback.h"
#include "kiln/training/distribute/replicas.h"
#include "kiln/training/metrics/metric.h"
#include "kiln/training/metrics/reduction_metrics.h"
#include "kiln/training/model/compile_options.h"

namespace kiln {

class Model;

// One batch as the steps take it: the model's inputs, its targets (one per output) and optional
// per-sample weights (empty or one tensor).
struct Batch {
  std::vector<Tensor> x;
  std::vector<Tensor> y;
  std::vector<Tensor> sample_weight;
};

using StepFunction =
    Function<std::vector<Tensor>(std::vector<Tensor>, std::vector<Tensor>, std::vector<Tensor>)>;
using PredictFunction = Function<std::vector<Tensor>(std::vector<Tensor>)>;

class Trainer {
 public:
  // The steps run on `device`: its batches are copied there and the state the trainer creates
  // (metrics, optimizer slots, the traced steps' constants) lives there.
  Trainer(Model& model, CompileOptions options, Device device);

  // One training step; returns the running loss and metrics ("loss", "accuracy", ...).
  Logs train_batch(const Batch& batch);
  // Consecutive training steps. A full group of compile's steps_per_execution batches runs as
  // one traced call (the steps unrolled in one graph); a shorter group (an epoch's end) runs
  // step by step. Returns the running loss and metrics after the last where the steps left
  // them, on the device: fit reads them (logs_from, a wait for a GPU) only where a callback
  // wants a step's logs, else at the epoch's end.
  std::vector<Tensor> train_batches(const std::vector<Batch>& batches);
  // A step's results as logs by name, read to the host.
  Logs logs_from(const std::vector<Tensor>& results) const;
  // One evaluation step (no update); returns the running loss and metrics.
  Logs test_batch(const Batch& batch);
  // The model's outputs for a batch. Under MirroredStrategy over several devices each replica
  // predicts its shard of the rows at once, and the outputs are joined in row order on the
  // trainer's device (replica 0 alone where functions run eagerly).
  std::vector<Tensor> predict_batch(const std::vector<Tensor>& x);
  // Zeroes the loss tracker and metrics (at the start of each epoch and evaluation).
  void reset_metrics();
  // Before the first step: builds the model and optimizer, resolves metrics against the first
  // batch's shapes, and fixes the steps' signatures (compile's step_shapes). The steps call it;
  // fit calls it before its callbacks start, so they may restore weights and optimizer state.
  void prepare(const Batch& batch);
  // After prepare: refuses a batch whose targets do not fit the outputs under the losses, as
  // prepare does for the first training batch, from shapes alone, naming `call`. fit checks its
  // validation data so before training, not after the first epoch.
  void check_batch(const Batch& given, std::string_view call) const;

  // What CallUndo (training/model/call_undo.h) reads and puts back for a call that failed before
  // running a step: whether the steps exist, how many steps ran (train, test and predict steps a
  // model's calls asked for, not prepare's probe), and the steps' forgetting.
  bool train_steps_ready() const { return !steps_.empty(); }
  bool predict_step_ready() const { return !predict_steps_.empty(); }
  uint64_t steps_run() const { return steps_run_; }
  // Back to what compile() set up: no train or test steps, metrics or target dtypes.
  void forget_train_steps();
  // No predict step and input dtypes.
  void forget_predict_step();

  const Device& device() const { return device_; }
  // This process's (first) replica of compile's strategy ({0, 1} without one).
  const distributed::ReplicaContext& replica() const { return replicas_.replica(); }
  // Whether `flag` holds on any replica (the flag itself with one): replicas stop training
  // together, whichever of them a callback or an interrupt told to.
  bool on_any_replica(bool flag) const { return replicas_.on_any(flag); }
  // The optimizer's and metrics' variables that exist now (compile moves those of objects the
  // user made, on the CPU, to the trainer's device).
  std::vector<Variable> state_variables() const;
  optimizers::Optimizer& optimizer() const { return *optimizer_; }
  int64_t optimizer_param_count() const;
  const CompileOptions& options() const { return options_; }
  // Trace and cache counters of each step, for the retrace report.
  FunctionStats train_stats() const;
  FunctionStats test_stats() const;
  FunctionStats predict_stats() const;
  // The traced train step that runs (Keras's model.train_function), for its graphs and plans:
  // under steps_per_execution > 1 the one running a group of batches once it has traced, else
  // the one-batch step; null before the first training step.
  const StepFunction* train_function() const;

 private:
  void prepare_predict(const std::vector<Tensor>& x);
  // Replica `replica`'s predict step on `x`, which it copies to the replica's device (prepare's
  // probe: replica 0's, not counted as a step).
  std::vector<Tensor> predict_on(const std::vector<Tensor>& x, int replica);
  // The losses on symbolic targets and predictions of the first batch's shapes: a target that
  // does not fit its output is refused before any state is made or callback runs.
  void check_targets(const Batch& batch, const std::vector<Tensor>& predictions) const;
  // A step's function options: `signature` (the model's unknown dims and any batch size) or
  // none, as compile's step_shapes says.
  FunctionOptions step_options(std::string name, std::vector<TensorSpec> signature,
                               std::vector<std::string> arg_names) const;
  // One training step (under the caller's DeviceScope); its results stay on the device.
  std::vector<Tensor> train_step(const Batch& batch);
  // The traced steps of one replica, made by prepare.
  struct ReplicaSteps;
  ReplicaSteps make_steps(const FunctionOptions& train_options, const Batch& batch);
  // The train step's work, traced into train_step_ once and into train_steps_ once per step.
  std::vector<Tensor> train_step_body(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                      const std::vector<Tensor>& sample_weight);
  // masks: the model's output masks (Model::output_masks); masked positions count in neither
  // the loss nor the metrics. added_loss: the losses the forward pass added (layers::CallLosses:
  // activity regularizers), undefined for none.
  Tensor total_loss(const std::vector<Tensor>& y, const std::vector<Tensor>& predictions,
                    const std::vector<Tensor>& sample_weight, const std::vector<Tensor>& masks,
                    const Tensor& added_loss) const;
  std::vector<Tensor> update_metrics(const Tensor& loss, const std::vector<Tensor>& y,
                                     const std::vector<Tensor>& predictions,
                                     const std::vector<Tensor>& sample_weight,
                                     const std::vector<Tensor>& masks);
  // The rows of a global batch for the replica this thread computes for (the whole batch with
  // one replica).
  Batch shard(const Batch& batch) const;
  // After the first build: every replica takes rank 0's weights and optimizer state (replicas in
  // this process: a copy of every variable the steps update).
  void broadcast_state() const;
  // The loss tracker's and metrics' variables, which the replicas keep alike.
  std::vector<Variable> metric_variables() const;
  // The batch on `device`, cast to the dtypes the steps were first traced for (x_dtypes_, ...)
  // on whichever side of the copy moves fewer bytes.
  Batch on_device(const Batch& batch, const Device& device) const;

  Model& model_;
  CompileOptions options_;
  Device device_;
  optimizers::OptimizerPtr optimizer_;
  std::vector<losses::LossPtr> losses_;  // one per output
  std::shared_ptr<metrics::Mean> loss_tracker_;
  struct CompiledMetric {
    size_t output;
    metrics::MetricPtr metric;
    bool weighted;  // from weighted_metrics: takes the sample weights
  };
  std::vector<CompiledMetric> metrics_;
  std::vector<std::string> result_names_;  // "loss", then metric names
  struct ReplicaSteps {
    std::unique_ptr<StepFunction> train;
    std::unique_ptr<StepFunction> train_many;  // steps_per_execution > 1: batches concatenated
    std::unique_ptr<StepFunction> test;
  };
  std::vector<ReplicaSteps> steps_;  // one per replica this process runs; none before prepare
  // One per replica this process runs; none before the first predict (or fit's probe).
  std::vector<std::unique_ptr<PredictFunction>> predict_steps_;
  // Each batch tensor's dtype inside the steps: inputs the model's declared dtypes, float targets
  // and weights the predictions' dtype, others as in the first batch.
  std::vector<DType> x_dtypes_;
  std::vector<DType> y_dtypes_;
  std::vector<DType> weight_dtypes_;
  uint64_t steps_run_ = 0;
  // Data parallelism (compile's strategy): where each replica's steps run.
  distribute::Replicas replicas_;
  // Replicas trace one at a time: tracing runs the model's C++ code, which is not shared-safe
  // (a model keeps its output masks between call and loss).
  std::mutex trace_mutex_;
};

}  // namespace kiln
