#include "kiln/training/model/trainer.h"

#include <string>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/call_losses.h"
#include "kiln/layers/trial_build.h"
#include "kiln/optimizers/loss_scale_optimizer.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/distribute/batch_shard.h"
#include "kiln/training/distribute/gradient_buckets.h"
#include "kiln/training/distribute/replica_updates.h"
#include "kiln/training/distribute/strategy.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/step_signature.h"

namespace kiln {
namespace {

std::vector<Shape> shapes_of(const std::vector<Tensor>& tensors) {
  std::vector<Shape> shapes;
  for (const Tensor& t : tensors) shapes.push_back(t.shape());
  return shapes;
}

std::vector<TensorMeta> metas_of(const std::vector<Tensor>& tensors) {
  std::vector<TensorMeta> metas;
  for (const Tensor& t : tensors) metas.push_back(t.meta());
  return metas;
}

}  // namespace

struct Trainer::Plan {
  BoundaryDTypes dtypes;
  std::vector<Shape> x_shapes;        // the first batch's inputs, which build the model
  std::vector<TensorSpec> x_specs;    // the predict step's signature
  std::vector<TensorSpec> signature;  // the train and test steps'
  CompiledMetrics::Resolved metrics;
};

Trainer::Trainer(Model& model, CompileOptions options, Device device)
    : model_(model),
      options_(std::move(options)),
      device_(device),
      loss_(options_, model),
      replicas_(options_.strategy, device_) {
  const DeviceScope scope(device_);
  optimizer_ = options_.optimizer.optimizer ? options_.optimizer.optimizer
                                            : optimizers::get(options_.optimizer.name);
  // As Keras's compile: float16 gradients need loss scaling, bfloat16 ones (float32's range) not.
  if (model_.dtype_policy().name == "mixed_float16" &&
      dynamic_cast<const optimizers::LossScaleOptimizer*>(optimizer_.get()) == nullptr)
    optimizer_ = std::make_shared<optimizers::LossScaleOptimizer>(optimizer_);
  KILN_CHECK(options_.steps_per_execution >= 1, "compile: steps_per_execution must be >= 1, got ",
             options_.steps_per_execution);
  // Eager steps would run the model's C++ code on every replica's thread at once.
  KILN_CHECK(!replicas_.threaded() || !options_.run_eagerly,
             "compile: ", options_.strategy->class_name(),
             " runs its replicas as threads of one process, whose steps must be traced: ",
             "run_eagerly is not supported (MultiWorkerMirroredStrategy runs eager steps, a ",
             "process per replica)");
}

FunctionOptions Trainer::step_options(std::string name, std::vector<TensorSpec> signature,
                                      std::vector<std::string> arg_names) const {
  FunctionOptions o{.name = std::move(name),
                    .run_eagerly = options_.run_eagerly,
                    .arg_names = std::move(arg_names)};
  o.passes.early_collectives = !options_.strategy || options_.strategy->overlap();
  switch (options_.step_shapes) {
    case StepShapes::model_inputs:
      o.input_signature = std::move(signature);
      break;
    case StepShapes::exact:
      o.unknown_batch_dim = true;
      break;
    case StepShapes::reduce_retracing:
      o.unknown_batch_dim = true;
      o.reduce_retracing = true;
      break;
  }
  return o;
}

void Trainer::prepare(const Batch& host_batch, const Batch* validation) {
  if (!steps_.empty()) return;
  const DeviceScope scope(device_);
  KILN_CHECK(model_.compiled(), "model '", model_.name(),
             "' is not compiled: call compile() before fit, evaluate or train_on_batch");
  KILN_CHECK(loss_.outputs() > 0, "model '", model_.name(),
             "' was compiled without a loss; fit and evaluate need one");
  Plan plan = this->plan(to_device(host_batch, device_), validation);
  // Every check passed: the state is made now, outside any trace, so the weights and the
  // optimizer's slots are created once.
  build_model(plan.x_shapes, plan.x_specs);
  if (predict_steps_.empty()) make_predict_steps(plan.dtypes.x, plan.x_specs);
  dtypes_ = std::move(plan.dtypes);
  optimizer_->build(model_.trainable_weights());
  metrics_.set(std::move(plan.metrics));
  const FunctionOptions train_options =
      step_options("train_step", std::move(plan.signature), {"x", "y", "sample_weight"});
  for (int r = 0; r < replicas_.local_count(); ++r) {
    // Each replica's steps take its shards on its device.
    FunctionOptions options = train_options;
    if (options.input_signature)
      for (TensorSpec& spec : *options.input_signature) spec.device = replicas_.device(r);
    steps_.push_back(make_steps(options, host_batch));
  }
  broadcast_state();
}

Trainer::Plan Trainer::plan(const Batch& given, const Batch* validation) const {
  const layers::TrialBuild trial;
  Plan p;
  p.x_shapes = shapes_of(given.x);
  if (!model_.built()) model_.build_from(p.x_shapes);
  std::tie(p.dtypes.x, p.x_specs) = input_plan(given.x);
  // Targets (and sample weights) vary where the predictions they go with do.
  const std::vector<TensorMeta> outputs = model_.compute_output_spec(metas_of(p.x_specs));
  for (size_t o = 0; o < given.y.size() && o < outputs.size(); ++o)
    p.dtypes.y.push_back(boundary_dtype(given.y[o], &outputs[o]));
  for (const Tensor& w : given.sample_weight)
    p.dtypes.sample_weight.push_back(boundary_dtype(w, &outputs[0]));
  const Batch batch = batch_on_device(given, p.dtypes, device_);
  const std::vector<TensorMeta> predictions = check_batch(batch, "");
  if (validation != nullptr)
    (void)check_batch(batch_on_device(*validation, p.dtypes, device_), "fit (validation_data)");
  std::vector<Shape> targets = shapes_of(batch.y);
  std::vector<Shape> predicted;
  for (const TensorMeta& m : predictions) predicted.push_back(m.shape);
  p.metrics = CompiledMetrics::resolve(options_, model_, targets, predicted);
  p.signature = p.x_specs;
  for (const auto& specs : {step_specs(batch.y, outputs), step_specs(batch.sample_weight, outputs)})
    p.signature.insert(p.signature.end(), specs.begin(), specs.end());
  return p;
}

void Trainer::check_validation(const Batch& validation) const {
  KILN_CHECK(!steps_.empty(), "check_validation before prepare");
  const DeviceScope scope(device_);
  (void)check_batch(batch_on_device(validation, dtypes_, device_), "fit (validation_data)");
}

std::pair<std::vector<DType>, std::vector<TensorSpec>> Trainer::input_plan(
    const std::vector<Tensor>& x) const {
  const std::vector<TensorMeta> declared = model_.step_input_specs();
  std::vector<DType> dtypes = dtypes_.x;
  if (predict_steps_.empty()) {
    dtypes.clear();
    for (size_t i = 0; i < x.size(); ++i)
      dtypes.push_back(boundary_dtype(x[i], i < declared.size() ? &declared[i] : nullptr));
  }
  std::vector<TensorSpec> signature = step_specs(inputs_cast(x, dtypes), declared);
  return {std::move(dtypes), std::move(signature)};
}

std::vector<TensorMeta> Trainer::check_batch(const Batch& batch, std::string_view call) const {
  const std::string prefix = call.empty() ? "" : std::string(call) + ": ";
  KILN_CHECK(batch.y.size() == loss_.outputs(), prefix, "model '", model_.name(), "' has ",
             loss_.outputs(), " outputs but the data has ", batch.y.size(), " targets");
  const std::vector<TensorMeta> predictions = model_.compute_output_spec(metas_of(batch.x));
  try {
    loss_.check_targets(batch, predictions);
  } catch (const Error& e) {
    throw Error(prefix + e.what());
  }
  return predictions;
}

void Trainer::build_model(const std::vector<Shape>& shapes, const std::vector<TensorSpec>& specs) {
  if (!model_.built()) model_.build_from(shapes);
  // A subclassed model's layers build on their first call: a symbolic one builds them here.
  (void)model_.compute_output_spec(metas_of(specs));
}

Trainer::ReplicaSteps Trainer::make_steps(const FunctionOptions& train_options,
                                          const Batch& batch) {
  ReplicaSteps steps;
  FunctionOptions test_options = train_options;
  test_options.name = "test_step";
  steps.train = std::make_unique<StepFunction>(
      [this](const std::vector<Tensor>& x, const std::vector<Tensor>& y,
             const std::vector<Tensor>& sw) {
        const std::lock_guard lock(trace_mutex_);
        return train_step_body(x, y, sw);
      },
      train_options);
  const int64_t n = options_.steps_per_execution;
  if (n > 1) {
    FunctionOptions multi_options = train_options;
    multi_options.name = "train_steps";
    if (train_options.input_signature)
      multi_options.input_signature = repeated(*train_options.input_signature, batch, n);
    // Step i reads its batch's tensors at i * (tensors per batch) in each argument.
    steps.train_many = std::make_unique<StepFunction>(
        [this, n](const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                  const std::vector<Tensor>& sw) {
          const std::lock_guard lock(trace_mutex_);
          std::vector<Tensor> results;
          for (int64_t i = 0; i < n; ++i)
            results = train_step_body(nth_group(x, i, n), nth_group(y, i, n), nth_group(sw, i, n));
          return results;
        },
        multi_options);
  }
  steps.test = std::make_unique<StepFunction>(
      [this](const std::vector<Tensor>& x, const std::vector<Tensor>& y,
             const std::vector<Tensor>& sw) {
        const std::lock_guard lock(trace_mutex_);
        const layers::CallLosses added;
        const std::vector<Tensor> predictions =
            model_(x, layers::CallContext{.training = false, .masks = {}});
        const std::vector<Tensor> masks = model_.output_masks();
        return metrics_.update(loss_(y, predictions, sw, masks, added.total()), y, predictions, sw,
                               masks);
      },
      test_options);
  return steps;
}

std::vector<Tensor> Trainer::train_step_body(const std::vector<Tensor>& x,
                                             const std::vector<Tensor>& y,
                                             const std::vector<Tensor>& sample_weight) {
  const std::vector<Variable> variables = model_.trainable_weights();
  const distributed::ReplicaContext replica = distributed::replica_context();
  // State the forward pass updates from the replica's shard (moving statistics): averaged over
  // the replicas after the step.
  std::vector<Variable> moving;
  if (replica.count > 1)
    for (const Variable& v : model_.non_trainable_weights())
      if (!v.trainable()) moving.push_back(v);  // not a frozen layer's kernel, say
  const std::vector<Tensor> moving_before = distribute::values_before(moving);
  std::vector<Tensor> predictions;
  std::vector<Tensor> masks;
  Tensor loss;  // the metrics' loss; the gradients are of the optimizer's scaled one
  auto [scaled_loss, grads] = value_and_grad(
      [&] {
        const layers::CallLosses added;
        predictions = model_(x, layers::CallContext{.training = true, .masks = {}});
        masks = model_.output_masks();
        loss = loss_(y, predictions, sample_weight, masks, added.total());
        return optimizer_->scale_loss(loss);
      },
      variables);
  if (replica.count > 1) {
    const Tensor rows = ops::size_of(y[0], {0}, DType::f64);
    grads = distribute::all_reduce_gradients(grads, options_.strategy->bucket_bytes(),
                                             ops::greater(rows, 0.0));
    distribute::average_updates_over_replicas(moving, moving_before, rows);
  }
  optimizer_->apply_gradients(grads, variables);
  return metrics_.update(loss, y, predictions, sample_weight, masks);
}

void Trainer::prepare_predict(const std::vector<Tensor>& host_x) {
  if (!predict_steps_.empty()) return;
  const std::vector<Tensor> given = to_device(host_x, device_);  // beside the weights
  std::vector<Shape> shapes = shapes_of(given);
  std::pair<std::vector<DType>, std::vector<TensorSpec>> plan;
  {
    // The model on the inputs' shapes, building nothing: a refused batch leaves nothing behind.
    const layers::TrialBuild trial;
    if (!model_.built()) model_.build_from(shapes);
    plan = input_plan(given);
    (void)model_.compute_output_spec(metas_of(plan.second));
  }
  build_model(shapes, plan.second);
  make_predict_steps(std::move(plan.first), plan.second);
}

void Trainer::make_predict_steps(std::vector<DType> x_dtypes,
                                 const std::vector<TensorSpec>& signature) {
  dtypes_.x = std::move(x_dtypes);
  for (int r = 0; r < replicas_.local_count(); ++r) {
    FunctionOptions options = step_options("predict_step", signature, {"x"});
    if (options.input_signature)
      for (TensorSpec& spec : *options.input_signature) spec.device = replicas_.device(r);
    predict_steps_.push_back(std::make_unique<PredictFunction>(
        [this](const std::vector<Tensor>& inputs) {
          const std::lock_guard lock(trace_mutex_);
          return model_(inputs, layers::CallContext{.training = false, .masks = {}});
        },
        std::move(options)));
  }
  if (replicas_.local_count() > 1) {
    std::vector<Variable> model_state = model_.weights();
    for (const Variable& v : model_.random_states()) model_state.push_back(v);
    replicas_.mirror_missing(model_state);
  }
}

Logs Trainer::logs_from(const std::vector<Tensor>& results) const {
  Logs logs;
  if (device_.is_cpu()) {
    for (size_t i = 0; i < results.size(); ++i)
      logs[metrics_.names()[i]] = results[i].item<double>();
    return logs;
  }
  // One copy to the host for all of them: each copy from a GPU waits for its stream.
  std::vector<Tensor> values;
  for (const Tensor& r : results) values.push_back(ops::reshape(ops::cast(r, DType::f64), {1}));
  const std::vector<double> host = ops::concat(values, 0).to_vector<double>();
  for (size_t i = 0; i < results.size(); ++i) logs[metrics_.names()[i]] = host[i];
  return logs;
}

Batch Trainer::shard(const Batch& batch) const {
  const distributed::ReplicaContext replica = distributed::replica_context();
  if (replica.count == 1) return batch;
  return {distribute::shard_of(batch.x, replica.id, replica.count),
          distribute::shard_of(batch.y, replica.id, replica.count),
          distribute::shard_of(batch.sample_weight, replica.id, replica.count)};
}

void Trainer::broadcast_state() const {
  std::vector<Variable> state = model_.weights();
  for (const auto& group : {model_.random_states(), optimizer_->variables()})
    state.insert(state.end(), group.begin(), group.end());
  replicas_.broadcast(state, metrics_.variables());
}

Logs Trainer::train_batch(const Batch& given) {
  const DeviceScope scope(device_);
  return logs_from(train_step(given));
}

std::vector<Tensor> Trainer::train_step(const Batch& given) {
  prepare(given);
  return run_step(&ReplicaSteps::train, given);
}

std::vector<Tensor> Trainer::run_step(std::unique_ptr<StepFunction> ReplicaSteps::*step,
                                      const Batch& given) {
  std::vector<Tensor> results;
  replicas_.run(
      [&](int r) {
        const Batch batch = batch_on_device(shard(given), dtypes_, replicas_.device(r));
        std::vector<Tensor> out =
            (*(steps_[static_cast<size_t>(r)].*step))(batch.x, batch.y, batch.sample_weight);
        if (r == 0) results = std::move(out);
      },
      functions_run_eagerly());
  return results;
}

std::vector<Tensor> Trainer::train_batches(const std::vector<Batch>& batches) {
  KILN_CHECK(!batches.empty(), "train_batches needs at least one batch");
  const DeviceScope scope(device_);
  prepare(batches[0]);
  if (!steps_[0].train_many ||
      static_cast<int64_t>(batches.size()) != options_.steps_per_execution) {
    std::vector<Tensor> results;
    for (const Batch& b : batches) results = train_step(b);
    return results;
  }
  std::vector<Tensor> results;
  replicas_.run(
      [&](int r) {
        Batch all;
        for (const Batch& given : batches) {
          const Batch b = batch_on_device(shard(given), dtypes_, replicas_.device(r));
          all.x.insert(all.x.end(), b.x.begin(), b.x.end());
          all.y.insert(all.y.end(), b.y.begin(), b.y.end());
          all.sample_weight.insert(all.sample_weight.end(), b.sample_weight.begin(),
                                   b.sample_weight.end());
        }
        std::vector<Tensor> out =
            (*steps_[static_cast<size_t>(r)].train_many)(all.x, all.y, all.sample_weight);
        if (r == 0) results = std::move(out);
      },
      functions_run_eagerly());
  return results;
}

Logs Trainer::test_batch(const Batch& given) {
  const DeviceScope scope(device_);
  prepare(given);
  return logs_from(run_step(&ReplicaSteps::test, given));
}

std::vector<Tensor> Trainer::predict_batch(const std::vector<Tensor>& x) {
  const DeviceScope scope(device_);
  prepare_predict(x);
  return replicas_.predict_by_rows(
      x, [this](const std::vector<Tensor>& rows, int r) { return predict_on(rows, r); }, device_,
      functions_run_eagerly());
}

std::vector<Tensor> Trainer::predict_on(const std::vector<Tensor>& given, int replica) {
  return (*predict_steps_[static_cast<size_t>(replica)])(
      inputs_on_device(given, dtypes_.x, replicas_.device(replica)));
}

void Trainer::reset_metrics() {
  metrics_.reset();
}

std::vector<Variable> Trainer::state_variables() const {
  std::vector<Variable> out = optimizer_->variables();
  // The metric objects the user gave, before prepare takes them.
  for (const bool weighted : {false, true})
    for (const MetricArg& arg : weighted ? options_.weighted_metrics : options_.metrics)
      if (arg.metric)
        out.insert(out.end(), arg.metric->variables().begin(), arg.metric->variables().end());
  for (const Variable& v : metrics_.variables()) out.push_back(v);
  return out;
}

int64_t Trainer::optimizer_param_count() const {
  int64_t n = 0;
  for (const Variable& v : optimizer_->variables()) n += v.shape().numel();
  return n;
}

const StepFunction* Trainer::train_function() const {
  if (steps_.empty()) return nullptr;
  const ReplicaSteps& s = steps_[0];
  return s.train_many && s.train_many->num_traces() > 0 ? s.train_many.get() : s.train.get();
}

FunctionStats Trainer::train_stats() const {
  return steps_.empty() ? FunctionStats{} : steps_[0].train->stats();
}
FunctionStats Trainer::test_stats() const {
  return steps_.empty() ? FunctionStats{} : steps_[0].test->stats();
}
FunctionStats Trainer::predict_stats() const {
  return predict_steps_.empty() ? FunctionStats{} : predict_steps_[0]->stats();
}

}  // namespace kiln
