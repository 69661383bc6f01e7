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
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/optimizers/optimizer.h"
#include "kiln/training/callbacks/callback.h"
#include "kiln/training/distribute/replicas.h"
#include "kiln/training/model/batch.h"
#include "kiln/training/model/compile_options.h"
#include "kiln/training/model/compiled_loss.h"
#include "kiln/training/model/compiled_metrics.h"
#include "kiln/training/model/step_boundary.h"

namespace kiln {

class Model;

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
  // Before the first step, in two phases. First every check, on the first batch's shapes alone:
  // the model's outputs for its inputs (on symbolic weights where it is not built yet:
  // layers/trial_build.h), the targets under the losses, the metrics that fit them (made, not
  // yet taken) and, where given, a `validation` batch (fit's validation_data) likewise. A batch
  // that fails is refused then and nothing is left behind. Then, all having passed: the model is
  // built, the optimizer's slots made, the metrics taken and the steps' signatures fixed
  // (compile's step_shapes). The steps call it; fit calls it before its callbacks start, so they
  // may restore weights and optimizer state. Errors no shape check can see (a loss that reads
  // values, a callback, an eager step failing halfway) come later and keep what was made.
  void prepare(const Batch& batch, const Batch* validation = nullptr);
  // After prepare: refuses fit's validation batch, from shapes alone, when its targets do not fit
  // the outputs under the losses.
  void check_validation(const Batch& validation) const;

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
  // What prepare's checks found, for its second phase.
  struct Plan;
  // prepare's first phase, inside a trial build.
  Plan plan(const Batch& batch, const Batch* validation) const;
  // The dtypes the inputs enter the steps as, and the predict step's signature.
  std::pair<std::vector<DType>, std::vector<TensorSpec>> input_plan(
      const std::vector<Tensor>& x) const;
  // Refuses a batch whose targets do not fit the outputs under the losses, from shapes alone,
  // prefixing the message with `call` where given; returns the outputs' specs.
  std::vector<TensorMeta> check_batch(const Batch& batch, std::string_view call) const;
  // Builds what a model not yet built (from the first batch's `shapes`), or a subclassed model's
  // layers, lacks for inputs of `specs`, outside any trace: the weights exist before the
  // optimizer builds its slots.
  void build_model(const std::vector<Shape>& shapes, const std::vector<TensorSpec>& specs);
  // Checks, then makes the predict steps for inputs like `x` (before the first predict).
  void prepare_predict(const std::vector<Tensor>& x);
  void make_predict_steps(std::vector<DType> x_dtypes, const std::vector<TensorSpec>& signature);
  // Replica `replica`'s predict step on `x`, which it copies to the replica's device.
  std::vector<Tensor> predict_on(const std::vector<Tensor>& x, int replica);
  // A step's function options: `signature` (the model's unknown dims and any batch size) or
  // none, as compile's step_shapes says.
  FunctionOptions step_options(std::string name, std::vector<TensorSpec> signature,
                               std::vector<std::string> arg_names) const;
  // One training step (under the caller's DeviceScope); its results stay on the device.
  std::vector<Tensor> train_step(const Batch& batch);
  // The traced steps of one replica, made by prepare.
  struct ReplicaSteps;
  // Each replica's shard of `given` through that replica's `step` (train or test); replica 0's
  // results, on the device.
  std::vector<Tensor> run_step(std::unique_ptr<StepFunction> ReplicaSteps::*step,
                               const Batch& given);
  ReplicaSteps make_steps(const FunctionOptions& train_options, const Batch& batch);
  // The train step's work, traced into train_step_ once and into train_steps_ once per step.
  std::vector<Tensor> train_step_body(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                      const std::vector<Tensor>& sample_weight);
  // The rows of a global batch for the replica this thread computes for (the whole batch with
  // one replica).
  Batch shard(const Batch& batch) const;
  // After the first build: every replica takes rank 0's weights and optimizer state (replicas in
  // this process: a copy of every variable the steps update).
  void broadcast_state() const;

  Model& model_;
  CompileOptions options_;
  Device device_;
  optimizers::OptimizerPtr optimizer_;
  CompiledLoss loss_;
  CompiledMetrics metrics_;
  struct ReplicaSteps {
    std::unique_ptr<StepFunction> train;
    std::unique_ptr<StepFunction> train_many;  // steps_per_execution > 1: batches concatenated
    std::unique_ptr<StepFunction> test;
  };
  std::vector<ReplicaSteps> steps_;  // one per replica this process runs; none before prepare
  // One per replica this process runs; none before the first predict (or fit's prepare).
  std::vector<std::unique_ptr<PredictFunction>> predict_steps_;
  // Each batch tensor's dtype inside the steps: inputs the model's declared dtypes, float targets
  // and weights the predictions' dtype, others as in the first batch.
  BoundaryDTypes dtypes_;
  // Data parallelism (compile's strategy): where each replica's steps run.
  distribute::Replicas replicas_;
  // Replicas trace one at a time: tracing runs the model's C++ code, which is not shared-safe
  // (a model keeps its output masks between call and loss).
  std::mutex trace_mutex_;
};

}  // namespace kiln
