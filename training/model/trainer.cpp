#include "kiln/training/model/trainer.h"

#include <set>
#include <string>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/communicator.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/call_losses.h"
#include "kiln/losses/registry.h"
#include "kiln/optimizers/loss_scale_optimizer.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/distribute/batch_shard.h"
#include "kiln/training/distribute/gradient_buckets.h"
#include "kiln/training/distribute/replica_updates.h"
#include "kiln/training/distribute/strategy.h"
#include "kiln/training/metrics/reduction_metrics.h"
#include "kiln/training/metrics/registry.h"
#include "kiln/training/model/model.h"

namespace kiln {
namespace {

// The signature a step is traced for: each tensor as given, but any batch size, and any size
// on the axes where `declared[i]` (the model's input or output spec the tensor goes with) has
// an unknown dim: a model declared on Input({-1}) takes sequences of every length in one trace.
// On the tensors' device.
std::vector<TensorSpec> step_specs(const std::vector<Tensor>& tensors,
                                   const std::vector<TensorMeta>& declared) {
  std::vector<TensorSpec> specs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::vector<int64_t> dims = tensors[i].shape().dims();
    if (!dims.empty()) dims[0] = -1;
    if (i < declared.size()) {
      const Shape& d = declared[i].shape;
      for (size_t a = 1; a < dims.size() && a < d.dims().size(); ++a)
        if (d.dims()[a] < 0) dims[a] = -1;
    }
    specs.emplace_back(Shape(std::move(dims)), tensors[i].dtype());
    specs.back().device = tensors[i].device();
  }
  return specs;
}

std::vector<TensorMeta> metas_of(const std::vector<TensorSpec>& specs) {
  std::vector<TensorMeta> metas;
  for (const TensorSpec& s : specs) metas.push_back({s.dtype, s.shape, s.device});
  return metas;
}

// The signature of `steps` batches concatenated argument by argument: each argument's specs
// (as `batch` has that argument's tensors) repeated `steps` times.
std::vector<TensorSpec> repeated(const std::vector<TensorSpec>& one, const Batch& batch,
                                 int64_t steps) {
  std::vector<TensorSpec> out;
  size_t at = 0;
  for (const size_t n : {batch.x.size(), batch.y.size(), batch.sample_weight.size()}) {
    for (int64_t i = 0; i < steps; ++i)
      out.insert(out.end(), one.begin() + static_cast<std::ptrdiff_t>(at),
                 one.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  return out;
}

// Batch i's tensors of one argument holding `steps` batches' tensors back to back.
std::vector<Tensor> nth_group(const std::vector<Tensor>& all, int64_t i, int64_t steps) {
  const auto per = static_cast<int64_t>(all.size()) / steps;
  return {all.begin() + i * per, all.begin() + (i + 1) * per};
}

// Output o's mask, or undefined when it has none.
Tensor mask_of(const std::vector<Tensor>& masks, size_t o) {
  return o < masks.size() ? masks[o] : Tensor();
}

// A metric's log name, Keras's way: `prefix name`, or where that is taken `prefix name_1`, ... for
// a second metric of the name and `prefix weighted_name` for a weighted one.
std::string unique_metric_name(const std::string& prefix, const std::string& name, bool weighted,
                               std::set<std::string>& taken) {
  std::string base = prefix + name;
  if (taken.contains(base) && weighted) base = prefix + "weighted_" + name;
  std::string unique = base;
  for (int k = 1; taken.contains(unique); ++k) unique = base + "_" + std::to_string(k);
  taken.insert(unique);
  return unique;
}

// Keras applies an output's mask to metrics as a sample weight: masked steps weigh 0.
Tensor masked_weight(const Tensor& sample_weight, const Tensor& mask) {
  if (!mask.defined()) return sample_weight;
  const Tensor weight = ops::cast(mask, DType::f32);
  if (!sample_weight.defined()) return weight;
  Tensor per_sample = ops::cast(sample_weight, DType::f32);
  while (per_sample.rank() < weight.rank())
    per_sample = ops::expand_dims(per_sample, per_sample.rank());
  return weight * per_sample;
}

// The dtype a batch tensor enters the steps as: the declared one (the model input's, or for
// targets and weights the prediction's: the loss dtype) where it is of the same kind, integer or
// float, else the first batch's. Integer labels of a float prediction stay integers.
DType boundary_dtype(const Tensor& first, const TensorMeta* declared) {
  if (declared != nullptr && is_floating(first.dtype()) == is_floating(declared->dtype))
    return declared->dtype;
  return first.dtype();
}

// Which boundary casts a call makes: all, or only those to a dtype no wider than the tensor's.
// Those go before the copy to the device (fewer bytes move, and an int64 range check reads
// host memory); the rest after it (uint8 images move as bytes).
enum class Casts { all, no_wider };

// Each tensor cast to its position's dtype, so int64 token ids after int32 ones (or float64
// features for a float32 model) reuse the trace instead of starting another. A cast that would
// lose values (floats into an integer input) is left to the step, which reports it.
std::vector<Tensor> cast_at_boundary(const std::vector<Tensor>& tensors,
                                     const std::vector<DType>& dtypes, const std::string& what,
                                     Casts casts = Casts::all) {
  std::vector<Tensor> out = tensors;
  for (size_t i = 0; i < out.size() && i < dtypes.size(); ++i) {
    if (!out[i].defined() || out[i].dtype() == dtypes[i] ||
        refuse_boundary_cast(out[i].dtype(), dtypes[i], /*allow_float_narrowing=*/true))
      continue;
    if (casts == Casts::all || dtype_size(dtypes[i]) <= dtype_size(out[i].dtype()))
      out[i] = boundary_cast(out[i], dtypes[i], what + " " + std::to_string(i));
  }
  return out;
}

std::vector<Tensor> to_device(const std::vector<Tensor>& tensors, const Device& device) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.defined() ? t.to(device) : t);
  return out;
}

Batch to_device(const Batch& batch, const Device& device) {
  return {to_device(batch.x, device), to_device(batch.y, device),
          to_device(batch.sample_weight, device)};
}

losses::LossPtr resolve(const LossArg& arg) {
  return arg.loss ? arg.loss : losses::get(arg.name);
}

}  // namespace

Trainer::Trainer(Model& model, CompileOptions options, Device device)
    : model_(model),
      options_(std::move(options)),
      device_(device),
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
  const size_t outputs = model_.num_outputs();
  if (!options_.losses.empty()) {
    KILN_CHECK(options_.losses.size() == outputs, "compile: model '", model_.name(), "' has ",
               outputs, " outputs but ", options_.losses.size(), " losses were given");
    for (const LossArg& l : options_.losses) losses_.push_back(resolve(l));
  } else if (!options_.loss.empty()) {
    losses_.assign(outputs, resolve(options_.loss));
  }
  KILN_CHECK(options_.loss_weights.empty() || options_.loss_weights.size() == outputs,
             "compile: ", options_.loss_weights.size(), " loss_weights for ", outputs, " outputs");
  loss_tracker_ = std::make_shared<metrics::Mean>("loss");
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

void Trainer::prepare(const Batch& host_batch) {
  if (!steps_.empty()) return;
  const DeviceScope scope(device_);
  KILN_CHECK(model_.compiled(), "model '", model_.name(),
             "' is not compiled: call compile() before fit, evaluate or train_on_batch");
  KILN_CHECK(!losses_.empty(), "model '", model_.name(),
             "' was compiled without a loss; fit and evaluate need one");
  KILN_CHECK(host_batch.y.size() == losses_.size(), "model '", model_.name(), "' has ",
             losses_.size(), " outputs but the data has ", host_batch.y.size(), " targets");
  const Batch given = to_device(host_batch, device_);
  // Build outside any trace: weights and optimizer slots are created once, here.
  prepare_predict(given.x);  // also fixes predict's signature
  const std::vector<Tensor> probe = predict_on(given.x, 0);
  const std::vector<TensorSpec> x_specs =
      step_specs(cast_at_boundary(given.x, x_dtypes_, "input"), model_.input_specs());
  const std::vector<TensorMeta> outputs = model_.compute_output_spec(metas_of(x_specs));
  for (size_t o = 0; o < given.y.size(); ++o)
    y_dtypes_.push_back(boundary_dtype(given.y[o], &outputs[o]));
  for (const Tensor& w : given.sample_weight)
    weight_dtypes_.push_back(boundary_dtype(w, &outputs[0]));
  const Batch batch = on_device(given, device_);
  check_targets(batch, probe);
  optimizer_->build(model_.trainable_weights());

  const bool several = batch.y.size() > 1;
  result_names_ = {"loss"};
  std::set<std::string> taken;
  for (const bool weighted : {false, true}) {
    for (const MetricArg& arg : weighted ? options_.weighted_metrics : options_.metrics) {
      for (size_t o = 0; o < batch.y.size(); ++o) {
        metrics::MetricPtr m = arg.metric && o == 0
                                   ? arg.metric
                                   : metrics::get(arg.metric ? arg.metric->name() : arg.name,
                                                  batch.y[o].shape(), probe[o].shape());
        const std::string prefix = several ? model_.output_name(o) + "_" : "";
        result_names_.push_back(unique_metric_name(prefix, m->name(), weighted, taken));
        metrics_.push_back({o, std::move(m), weighted});
      }
    }
  }

  // Targets (and sample weights) vary where the predictions they go with do.
  std::vector<TensorSpec> signature = x_specs;
  for (const auto& specs : {step_specs(batch.y, outputs), step_specs(batch.sample_weight, outputs)})
    signature.insert(signature.end(), specs.begin(), specs.end());
  FunctionOptions train_options =
      step_options("train_step", std::move(signature), {"x", "y", "sample_weight"});
  for (int r = 0; r < replicas_.local_count(); ++r) {
    // Each replica's steps take its shards on its device.
    FunctionOptions options = train_options;
    if (options.input_signature)
      for (TensorSpec& spec : *options.input_signature) spec.device = replicas_.device(r);
    steps_.push_back(make_steps(options, batch));
  }
  broadcast_state();
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
        return update_metrics(total_loss(y, predictions, sw, masks, added.total()), y, predictions,
                              sw, masks);
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
        loss = total_loss(y, predictions, sample_weight, masks, added.total());
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
  return update_metrics(loss, y, predictions, sample_weight, masks);
}

void Trainer::check_batch(const Batch& given, std::string_view call) const {
  KILN_CHECK(given.y.size() == losses_.size(), call, ": model '", model_.name(), "' has ",
             losses_.size(), " outputs but the data has ", given.y.size(), " targets");
  const DeviceScope scope(device_);
  const Batch batch = on_device(given, device_);
  std::vector<TensorMeta> x;
  for (const Tensor& t : batch.x) x.push_back(t.meta());
  std::vector<Tensor> predictions;
  for (const TensorMeta& m : model_.compute_output_spec(x))
    predictions.push_back(Tensor::symbolic(m));
  try {
    check_targets(batch, predictions);
  } catch (const Error& e) {
    throw Error(std::string(call) + ": " + e.what());
  }
}

void Trainer::check_targets(const Batch& batch, const std::vector<Tensor>& predictions) const {
  const auto symbolic = [](const Tensor& t) {
    return t.defined() ? Tensor::symbolic(t.meta()) : Tensor();
  };
  const Tensor sw = batch.sample_weight.empty() ? Tensor() : symbolic(batch.sample_weight[0]);
  for (size_t o = 0; o < losses_.size(); ++o) {
    try {
      (void)(*losses_[o])(symbolic(batch.y[o]), symbolic(predictions[o]), sw, Tensor());
    } catch (const SymbolicValueError&) {
      // A loss that reads values (a custom one, for a model run eagerly) cannot be checked from
      // shapes; its first step checks it.
    } catch (const Error& e) {
      throw Error("model '" + model_.name() + "': target " + describe(batch.y[o].meta()) +
                  " does not fit output '" + model_.output_name(o) + "' " +
                  describe(predictions[o].meta()) + " under its loss: " + e.what());
    }
  }
}

void Trainer::forget_train_steps() {
  steps_.clear();
  metrics_.clear();
  result_names_.clear();
  y_dtypes_.clear();
  weight_dtypes_.clear();
}

void Trainer::forget_predict_step() {
  predict_steps_.clear();
  x_dtypes_.clear();
}

void Trainer::prepare_predict(const std::vector<Tensor>& given) {
  if (!predict_steps_.empty()) return;
  std::vector<Shape> shapes;
  for (const Tensor& t : given) shapes.push_back(t.shape());
  if (!model_.built()) model_.build_from(shapes);
  const std::vector<TensorMeta> declared = model_.input_specs();
  for (size_t i = 0; i < given.size(); ++i)
    x_dtypes_.push_back(boundary_dtype(given[i], i < declared.size() ? &declared[i] : nullptr));
  const std::vector<TensorSpec> signature =
      step_specs(cast_at_boundary(given, x_dtypes_, "input"), model_.input_specs());
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

Tensor Trainer::total_loss(const std::vector<Tensor>& y, const std::vector<Tensor>& predictions,
                           const std::vector<Tensor>& sample_weight,
                           const std::vector<Tensor>& masks, const Tensor& added_loss) const {
  const Tensor sw = sample_weight.empty() ? Tensor() : sample_weight[0];
  Tensor total;
  for (size_t o = 0; o < losses_.size(); ++o) {
    Tensor l = (*losses_[o])(y[o], predictions[o], sw, mask_of(masks, o));
    if (!options_.loss_weights.empty()) l = l * options_.loss_weights[o];
    total = total.defined() ? total + l : l;
  }
  // A replica's activity penalties are on its rows only: the replicas' sum is one device's.
  if (added_loss.defined()) total = total + ops::cast(added_loss, total.dtype());
  Tensor penalty = model_.regularization_loss();
  if (!penalty.defined()) return total;
  // Each replica adds its share: the replicas' losses sum to one penalty, as one device's.
  const int replicas = distributed::replica_context().count;
  if (replicas > 1) penalty = penalty * (1.0 / replicas);
  return total + ops::cast(penalty, total.dtype());
}

std::vector<Tensor> Trainer::update_metrics(const Tensor& loss, const std::vector<Tensor>& y,
                                            const std::vector<Tensor>& predictions,
                                            const std::vector<Tensor>& sample_weight,
                                            const std::vector<Tensor>& masks) {
  const bool several = distributed::replica_context().count > 1;
  const std::vector<Variable> synced = several ? metric_variables() : std::vector<Variable>{};
  const std::vector<Tensor> before = distribute::values_before(synced);
  // The loss tracker averages batch losses weighted by batch size, as Keras's does.
  const Tensor batch_size = ops::size_of(y[0], {0}, DType::f32);
  if (several) {
    // A replica's loss is its share of the global batch's: weighed as the global batch's loss
    // times the replica's rows / the global rows, the replicas' updates add up to one device's.
    const Tensor global_size = distributed::global_sum(batch_size);
    loss_tracker_->update_values(ops::stop_gradient(loss) * global_size /
                                     ops::maximum(batch_size, ops::ones_like(batch_size)),
                                 batch_size);
  } else {
    loss_tracker_->update_values(ops::stop_gradient(loss), batch_size);
  }
  const Tensor sw = sample_weight.empty() ? Tensor() : sample_weight[0];
  for (const CompiledMetric& m : metrics_) {
    const Tensor mask = mask_of(masks, m.output);
    m.metric->update_state(y[m.output], predictions[m.output],
                           m.weighted ? masked_weight(sw, mask) : masked_weight(Tensor(), mask));
  }
  distribute::sum_updates_over_replicas(synced, before);
  std::vector<Tensor> results{loss_tracker_->result()};
  for (const CompiledMetric& m : metrics_) results.push_back(m.metric->result());
  return results;
}

Logs Trainer::logs_from(const std::vector<Tensor>& results) const {
  Logs logs;
  if (device_.is_cpu()) {
    for (size_t i = 0; i < results.size(); ++i) logs[result_names_[i]] = results[i].item<double>();
    return logs;
  }
  // One copy to the host for all of them: each copy from a GPU waits for its stream.
  std::vector<Tensor> values;
  for (const Tensor& r : results) values.push_back(ops::reshape(ops::cast(r, DType::f64), {1}));
  const std::vector<double> host = ops::concat(values, 0).to_vector<double>();
  for (size_t i = 0; i < results.size(); ++i) logs[result_names_[i]] = host[i];
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
  replicas_.broadcast(state, metric_variables());
}

std::vector<Variable> Trainer::metric_variables() const {
  std::vector<Variable> out = loss_tracker_->variables();
  for (const CompiledMetric& m : metrics_)
    out.insert(out.end(), m.metric->variables().begin(), m.metric->variables().end());
  return out;
}

Batch Trainer::on_device(const Batch& batch, const Device& device) const {
  const auto cast = [this](const Batch& b, Casts casts) {
    return Batch{cast_at_boundary(b.x, x_dtypes_, "input", casts),
                 cast_at_boundary(b.y, y_dtypes_, "target", casts),
                 cast_at_boundary(b.sample_weight, weight_dtypes_, "sample_weight", casts)};
  };
  return cast(to_device(cast(batch, Casts::no_wider), device), Casts::all);
}

Logs Trainer::train_batch(const Batch& given) {
  const DeviceScope scope(device_);
  return logs_from(train_step(given));
}

std::vector<Tensor> Trainer::train_step(const Batch& given) {
  prepare(given);
  std::vector<Tensor> results;
  replicas_.run(
      [&](int r) {
        const Batch batch = on_device(shard(given), replicas_.device(r));
        std::vector<Tensor> out =
            (*steps_[static_cast<size_t>(r)].train)(batch.x, batch.y, batch.sample_weight);
        if (r == 0) results = std::move(out);
      },
      functions_run_eagerly());
  ++steps_run_;
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
          const Batch b = on_device(shard(given), replicas_.device(r));
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
  ++steps_run_;
  return results;
}

Logs Trainer::test_batch(const Batch& given) {
  const DeviceScope scope(device_);
  prepare(given);
  std::vector<Tensor> results;
  replicas_.run(
      [&](int r) {
        const Batch batch = on_device(shard(given), replicas_.device(r));
        std::vector<Tensor> out =
            (*steps_[static_cast<size_t>(r)].test)(batch.x, batch.y, batch.sample_weight);
        if (r == 0) results = std::move(out);
      },
      functions_run_eagerly());
  ++steps_run_;
  return logs_from(results);
}

std::vector<Tensor> Trainer::predict_batch(const std::vector<Tensor>& x) {
  const DeviceScope scope(device_);
  prepare_predict(x);
  std::vector<Tensor> out = replicas_.predict_by_rows(
      x, [this](const std::vector<Tensor>& rows, int r) { return predict_on(rows, r); }, device_,
      functions_run_eagerly());
  ++steps_run_;
  return out;
}

std::vector<Tensor> Trainer::predict_on(const std::vector<Tensor>& given, int replica) {
  const Device& device = replicas_.device(replica);
  const std::vector<Tensor> x =
      to_device(cast_at_boundary(given, x_dtypes_, "input", Casts::no_wider), device);
  return (*predict_steps_[static_cast<size_t>(replica)])(cast_at_boundary(x, x_dtypes_, "input"));
}

void Trainer::reset_metrics() {
  loss_tracker_->reset_state();
  for (const CompiledMetric& m : metrics_) m.metric->reset_state();
}

std::vector<Variable> Trainer::state_variables() const {
  std::vector<Variable> out = optimizer_->variables();
  std::vector<metrics::MetricPtr> metrics{loss_tracker_};
  for (const bool weighted : {false, true})
    for (const MetricArg& arg : weighted ? options_.weighted_metrics : options_.metrics)
      if (arg.metric) metrics.push_back(arg.metric);
  for (const CompiledMetric& m : metrics_) metrics.push_back(m.metric);
  for (const metrics::MetricPtr& m : metrics)
    out.insert(out.end(), m->variables().begin(), m->variables().end());
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
