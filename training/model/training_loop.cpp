// Model::compile / fit / evaluate / predict: batching the data, calling the trainer's traced
// steps, and telling the callbacks.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/training/callbacks/progbar_logger.h"
#include "kiln/training/model/device_choice.h"
#include "kiln/training/model/epoch_batches.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"

namespace kiln {
namespace {

// An epoch that waits this fraction of its time for batches says so in the log.
constexpr double kInputWaitWorthSaying = 0.1;
// Epochs shorter than this lose too little to waiting to be worth a line.
constexpr double kEpochSecondsWorthSaying = 1.0;

// The callbacks of one fit / evaluate / predict, with the progress bar and the history added.
struct CallbackList {
  std::vector<CallbackPtr> all;

  CallbackList(Model& model, const std::vector<CallbackPtr>& user, int verbose, int epochs,
               int64_t steps) {
    // In data-parallel training the replicas other than the chief neither report nor write.
    for (const CallbackPtr& c : user)
      if (model.is_chief() || !c->chief_only()) all.push_back(c);
    if (!model.is_chief()) verbose = 0;
    // verbose "auto": a live bar on a terminal, one line per epoch otherwise.
    if (verbose == kVerboseAuto) verbose = isatty(fileno(stdout)) != 0 ? 1 : 2;
    // As in Keras, a ProgbarLogger among the user's callbacks (one writing elsewhere, say)
    // replaces the default one.
    const bool has_progbar = std::any_of(user.begin(), user.end(), [](const CallbackPtr& c) {
      return dynamic_cast<const ProgbarLogger*>(c.get()) != nullptr;
    });
    if (verbose != 0 && !has_progbar) all.push_back(std::make_shared<ProgbarLogger>());
    for (const CallbackPtr& c : all) {
      c->set_model(&model);
      c->set_params({.epochs = epochs, .steps = steps, .verbose = verbose});
    }
  }
  template <typename F>
  void each(F f) const {
    for (const CallbackPtr& c : all) f(*c);
  }
  bool read_train_batch_logs() const {
    return std::any_of(all.begin(), all.end(),
                       [](const CallbackPtr& c) { return c->reads_train_batch_logs(); });
  }
};

size_t model_inputs(const Model& model) {
  const size_t n = model.input_specs().size();
  return n == 0 ? 1 : n;
}

// Splits a dataset element into inputs (checked against the model's, naming the public `call`),
// targets and an optional sample weight.
Batch to_batch(const Model& model, const datasets::Element& e, bool with_targets,
               std::string_view call) {
  const size_t inputs = model_inputs(model);
  const size_t outputs = model.num_outputs();
  Batch b;
  KILN_CHECK(e.size() >= inputs, call, ": a dataset element has ", e.size(),
             " components; the model takes ", inputs, " inputs");
  for (size_t i = 0; i < inputs; ++i) b.x.push_back(e[i]);
  model.check_inputs(b.x, call);
  b.x = model.encode_string_inputs(b.x);
  if (!with_targets) return b;
  KILN_CHECK(e.size() == inputs + outputs || e.size() == inputs + outputs + 1, call,
             ": a dataset element has ", e.size(), " components; expected ", inputs, " inputs + ",
             outputs, " targets (+ 1 sample weight)");
  for (size_t i = inputs; i < inputs + outputs; ++i) b.y.push_back(e[i]);
  if (e.size() == inputs + outputs + 1) b.sample_weight = {e.back()};
  return b;
}

// Keras's class_weight: each sample weighted by its class (integer labels or one-hot rows).
Tensor class_weights_for(const Tensor& y, const std::map<int64_t, double>& class_weight) {
  const Tensor labels =
      y.rank() >= 2 && y.dim(-1) > 1 ? ops::argmax(y, -1) : ops::reshape(y, {y.dim(0)});
  // Float labels round to the nearest class (halves to even), as NumPy's round in Keras.
  const auto classes = ops::cast(labels, DType::f64).to_vector<double>();
  std::vector<float> w(classes.size());
  for (size_t i = 0; i < classes.size(); ++i) {
    const auto it = class_weight.find(static_cast<int64_t>(std::nearbyint(classes[i])));
    w[i] = it == class_weight.end() ? 1.0f : static_cast<float>(it->second);
  }
  return from_vector(w, {static_cast<int64_t>(w.size())}, DType::f32, Device::cpu());
}

std::vector<Tensor> leading_slice(const std::vector<Tensor>& ts, int64_t begin, int64_t end) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) {
    KILN_CHECK(t.rank() >= 1, "fit: inputs and targets need a batch dim, got a scalar");
    std::vector<int64_t> b{begin};
    std::vector<int64_t> s{end - begin};
    b.resize(static_cast<size_t>(t.rank()), 0);
    s.resize(static_cast<size_t>(t.rank()), -1);
    out.push_back(ops::slice(t, b, s));
  }
  return out;
}

datasets::Dataset tensors_dataset(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                  const Tensor& sample_weight) {
  std::vector<Tensor> components = x;
  components.insert(components.end(), y.begin(), y.end());
  if (sample_weight.defined()) components.push_back(sample_weight);
  return datasets::Dataset::from_tensor_slices(components);
}

// fit's options that any data takes, checked before anything is built or drawn.
void check_fit_options(const FitOptions& options) {
  KILN_CHECK(options.validation_freq >= 1, "fit: validation_freq must be at least 1, got ",
             options.validation_freq);
}

// fit's validation data as batches: validation_data's tensors, else validation_dataset (or none).
std::optional<datasets::Dataset> validation_dataset_of(const FitOptions& options) {
  if (!options.validation_data) return options.validation_dataset;
  const ValidationData& v = *options.validation_data;
  return tensors_dataset(v.x, v.y, v.sample_weight)
      .batch(options.validation_batch_size > 0 ? options.validation_batch_size
                                               : options.batch_size);
}

int64_t steps_of(const datasets::Dataset& d) {
  const int64_t n = d.cardinality();
  return n >= 0 ? n : -1;
}

// Where a checkpoint (kiln train --resume, BackupAndRestore) resumes this fit: after `epoch`
// epochs and `step` batches of the next, with the optimizer `iterations` steps in. A point past
// the run's epochs or past the end of an epoch (`steps` batches; -1 unknown) would skip batches
// silently, and negative iterations would train with a broken bias correction: refused.
void check_resume_point(int epoch, int64_t step, int epochs, int64_t steps, int64_t iterations) {
  KILN_CHECK(epoch < epochs || (epoch == epochs && step == 0), "fit: the checkpoint resumes at ",
             "epoch ", epoch + 1, ", past the ", epochs, " this run trains");
  KILN_CHECK(steps < 0 || step < steps, "fit: the checkpoint resumes at batch ", step + 1,
             " of epoch ", epoch + 1, ", but an epoch here has ", steps,
             " batches (another batch size or data limit than the run that wrote it?)");
  KILN_CHECK(iterations >= 0, "fit: the checkpoint's optimizer has taken ", iterations,
             " steps, which is not a count");
}

// The logs of one evaluation pass over `data` (metrics reset first); `call` names it in errors.
Logs run_test(Model& model, const datasets::Dataset& data, const CallbackList& callbacks,
              int64_t max_steps, std::string_view call) {
  Trainer& trainer = model.trainer();
  trainer.reset_metrics();
  NoGradGuard no_grad;
  callbacks.each([](Callback& c) { c.on_test_begin({}); });
  Logs logs;
  int64_t step = 0;
  for (const datasets::Element& e : data) {
    if (max_steps >= 0 && step >= max_steps) break;
    callbacks.each([&](Callback& c) { c.on_test_batch_begin(step, {}); });
    logs = trainer.test_batch(to_batch(model, e, true, call));
    callbacks.each([&](Callback& c) { c.on_test_batch_end(step, logs); });
    ++step;
  }
  callbacks.each([&](Callback& c) { c.on_test_end(logs); });
  return logs;
}

}  // namespace

void Model::compile(CompileOptions options) {
  if (!options.strategy) options.strategy = distribute::current_strategy();
  const DeviceChoice choice =
      options.strategy && options.device.empty()
          ? DeviceChoice{options.strategy->device(), options.strategy->class_name() + "'s"}
          : choose_device(options.device);
  adopt(std::make_unique<Trainer>(*this, std::move(options), choice.device), choice.reason);
  compiled_ = true;
}

Trainer& Model::predicting_trainer() {
  if (!trainer_) {
    const DeviceChoice choice = choose_device("");
    adopt(std::make_unique<Trainer>(*this, CompileOptions{}, choice.device), choice.reason);
  }
  return *trainer_;
}

void Model::adopt(std::unique_ptr<Trainer> trainer, const std::string& reason) {
  const Device& device = trainer->device();
  for (const auto& group : {weights(), random_states(), trainer->state_variables()})
    for (const Variable& v : group) v.move_to(device);
  trainer_ = std::move(trainer);
  log(LogLevel::info, "model '", name(), "' runs on ", device, " (", reason, ")");
}

History Model::fit(const Tensor& x, const Tensor& y, FitOptions options) {
  return fit(std::vector{x}, std::vector{y}, std::move(options));
}

History Model::fit(const std::vector<Tensor>& x, const std::vector<Tensor>& y, FitOptions options) {
  KILN_CHECK(!x.empty() && !y.empty(), "fit needs inputs and targets");
  check_fit_options(options);
  check_inputs(x, "fit");
  if (options.validation_data) check_inputs(options.validation_data->x, "fit (validation_data)");
  const int64_t n = x[0].dim(0);
  for (const auto* group : {&x, &y})
    for (const Tensor& t : *group)
      KILN_CHECK(t.dim(0) == n, "fit: every input and target needs the same number of samples; ",
                 "got ", n, " and ", t.dim(0));
  std::vector<Tensor> train_x = x;
  std::vector<Tensor> train_y = y;
  Tensor sample_weight = options.sample_weight;
  if (options.validation_split > 0 && !options.validation_data) {
    KILN_CHECK(options.validation_split < 1, "fit: validation_split must be in [0, 1), got ",
               options.validation_split);
    // Keras takes the last fraction, before any shuffling.
    const auto split =
        static_cast<int64_t>(static_cast<double>(n) * (1 - options.validation_split));
    options.validation_data = ValidationData{
        leading_slice(x, split, n), leading_slice(y, split, n),
        sample_weight.defined() ? leading_slice({sample_weight}, split, n)[0] : Tensor()};
    train_x = leading_slice(x, 0, split);
    train_y = leading_slice(y, 0, split);
    if (sample_weight.defined()) sample_weight = leading_slice({sample_weight}, 0, split)[0];
  }
  KILN_CHECK(train_x[0].dim(0) > 0, "fit: the training data has no samples (", n,
             " given, validation_split ", options.validation_split, ")");
  if (!options.class_weight.empty()) {
    KILN_CHECK(train_y.size() == 1, "fit: class_weight works with one output, the data has ",
               train_y.size(), " targets; give per-sample weights instead");
    const Tensor cw = class_weights_for(train_y[0], options.class_weight);
    sample_weight = sample_weight.defined() ? sample_weight * cw : cw;
    options.class_weight.clear();
  }
  datasets::Dataset data = tensors_dataset(train_x, train_y, sample_weight);
  // Refused before the shuffle draws its seed, so a refused call leaves the random stream as it
  // was.
  prepare_steps(data.batch(options.batch_size), "fit", 0, validation_dataset_of(options));
  if (options.shuffle) {
    const auto seed = static_cast<uint64_t>(random::default_generator().next_stream() ^
                                            random::default_generator().seed());
    data = data.shuffle(static_cast<size_t>(train_x[0].dim(0)), seed);
  }
  data = data.batch(options.batch_size);
  // Consumed here: the Dataset overload refuses them.
  options.validation_split = 0;
  options.sample_weight = Tensor();
  return fit(data, std::move(options));
}

void Model::prepare_for(const datasets::Dataset& data, std::string_view call, uint64_t pass) {
  prepare_steps(data, call, pass, std::nullopt);
}

void Model::prepare_steps(const datasets::Dataset& data, std::string_view call, uint64_t pass,
                          const std::optional<datasets::Dataset>& validation) {
  Trainer& t = trainer();
  const bool prepared = t.train_function() != nullptr;
  std::optional<Batch> first;
  if (!prepared)
    if (const std::optional<datasets::Element> e = data.iterator(pass).next())
      first = to_batch(*this, *e, true, call);
  std::optional<Batch> validation_batch;
  if (validation)
    if (const std::optional<datasets::Element> v = validation->iterator(0).next())
      validation_batch = to_batch(*this, *v, true, "fit (validation_data)");
  if (prepared) {
    if (validation_batch) t.check_validation(*validation_batch);
  } else if (first) {
    t.prepare(*first, validation_batch ? &*validation_batch : nullptr);
  }
}

History Model::fit(const datasets::Dataset& data, FitOptions options) {
  Trainer& t = trainer();
  KILN_CHECK(options.class_weight.empty(),
             "fit: class_weight works with tensors; for a Dataset, add sample weights to it");
  KILN_CHECK(options.validation_split == 0 && !options.sample_weight.defined(),
             "fit: validation_split and sample_weight work with tensors; for a Dataset, pass "
             "validation_data and add sample weights to its elements");
  check_fit_options(options);
  if (options.validation_data) {
    check_inputs(options.validation_data->x, "fit (validation_data)");
    options.validation_dataset = validation_dataset_of(options);
    options.validation_data.reset();
  }
  const int64_t steps = options.steps_per_epoch > 0 ? options.steps_per_epoch : steps_of(data);
  auto history = std::make_shared<History>();
  std::vector<CallbackPtr> user = options.callbacks;
  // After the user's callbacks, as in Keras, so it records what they add to an epoch's logs.
  user.push_back(history);
  const CallbackList callbacks(*this, user, options.verbose, options.epochs, steps);
  const int64_t per_execution = t.options().steps_per_execution;
  const bool read_batch_logs = callbacks.read_train_batch_logs();

  stop_training = false;
  // Checked and built before the callbacks start, so one may restore weights and optimizer
  // state; validation data that does not fit is refused now, not after the first epoch.
  prepare_steps(data, "fit", static_cast<uint64_t>(options.initial_epoch),
                options.validation_dataset);
  resume_point_.reset();
  callbacks.each([](Callback& c) { c.on_train_begin({}); });
  if (resume_point_)
    check_resume_point(resume_point_->first, resume_point_->second, options.epochs, steps,
                       t.optimizer().iterations().value().item<int64_t>());
  const auto [first_epoch, skip] = resume_point_.value_or(std::pair{options.initial_epoch, 0});
  resume_point_.reset();
  Logs epoch_logs;
  const auto initial = static_cast<uint64_t>(options.initial_epoch);
  const uint64_t first_pass = data_passes_ > initial ? data_passes_ - initial : 0;
  EpochBatches batches(data, options.steps_per_epoch, first_pass);
  int epochs_run_to = first_epoch;
  for (int epoch = first_epoch; epoch < options.epochs && !stop_training; ++epoch) {
    t.reset_metrics();
    callbacks.each([&](Callback& c) { c.on_epoch_begin(epoch, {}); });
    std::vector<Tensor> results;  // the last step's, on the device
    // A resumed epoch skips the batches it trained before it stopped.
    int64_t step = epoch == first_epoch ? skip : 0;
    batches.begin_epoch(epoch, step);
    // As in Keras, callbacks hear of each group of steps_per_execution batches once: the begin
    // with its first step, the end with its last.
    std::vector<Batch> group;
    const auto run_group = [&] {
      callbacks.each([&](Callback& c) { c.on_train_batch_begin(step, {}); });
      results = t.train_batches(group);
      step += static_cast<int64_t>(group.size());
      group.clear();
      const Logs logs = read_batch_logs ? t.logs_from(results) : Logs{};
      callbacks.each([&](Callback& c) { c.on_train_batch_end(step - 1, logs); });
      stop_training = t.on_any_replica(stop_training);
    };
    // How long the epoch waits on the input pipeline, against its whole training time.
    const auto epoch_start = std::chrono::steady_clock::now();
    std::chrono::duration<double> waited{0};
    const auto next_batch = [&] {
      const auto asked = std::chrono::steady_clock::now();
      std::optional<datasets::Element> e = batches.next(step + static_cast<int64_t>(group.size()));
      waited += std::chrono::steady_clock::now() - asked;
      return e;
    };
    while (std::optional<datasets::Element> e = next_batch()) {
      group.push_back(to_batch(*this, *e, true, "fit"));
      if (static_cast<int64_t>(group.size()) == per_execution) run_group();
      if (stop_training) break;
    }
    if (!group.empty()) run_group();
    const std::chrono::duration<double> trained = std::chrono::steady_clock::now() - epoch_start;
    const double input_wait = trained.count() > 0 ? waited.count() / trained.count() : 0;
    history->input_wait.push_back(input_wait);
    // Said at info level when it is worth acting on, at debug level (KILN_LOG_LEVEL=debug)
    // always.
    const bool worth_saying =
        input_wait >= kInputWaitWorthSaying && trained.count() >= kEpochSecondsWorthSaying;
    log(worth_saying ? LogLevel::info : LogLevel::debug, "fit: epoch ", epoch + 1,
        " waited for input ", static_cast<int>(100 * input_wait), "% of its ", trained.count(),
        " s",
        worth_saying
            ? " (the input pipeline is the bottleneck: prefetch, map's num_parallel_calls, cache)"
            : "");
    epoch_logs = results.empty() ? Logs{} : t.logs_from(results);
    if (options.validation_dataset && (epoch + 1) % options.validation_freq == 0) {
      // Validation runs through the fit's callbacks, so the bar knows to stay quiet.
      const Logs val =
          run_test(*this, *options.validation_dataset, callbacks, -1, "fit (validation_data)");
      for (const auto& [name, value] : val) epoch_logs["val_" + name] = value;
    }
    callbacks.each([&](Callback& c) { c.on_epoch_end(epoch, epoch_logs); });
    stop_training = t.on_any_replica(stop_training);
    epochs_run_to = epoch + 1;
    if (batches.ran_out()) {
      log(LogLevel::warning, "fit: the data ran out after ", step,
          " of steps_per_epoch=", options.steps_per_epoch, " batches in epoch ", epoch + 1,
          "; training stops (a dataset feeding steps_per_epoch * epochs batches needs .repeat())");
      stop_training = true;
    }
  }
  callbacks.each([&](Callback& c) { c.on_train_end(epoch_logs); });
  data_passes_ = std::max(data_passes_, first_pass + static_cast<uint64_t>(epochs_run_to));
  return *history;
}

std::map<std::string, double> Model::evaluate(const Tensor& x, const Tensor& y,
                                              EvaluateOptions options) {
  return evaluate(std::vector{x}, std::vector{y}, std::move(options));
}

std::map<std::string, double> Model::evaluate(const std::vector<Tensor>& x,
                                              const std::vector<Tensor>& y,
                                              EvaluateOptions options) {
  // Built before `options` is moved into the call: argument order is unspecified.
  const datasets::Dataset data =
      tensors_dataset(x, y, options.sample_weight).batch(options.batch_size);
  return evaluate(data, std::move(options));
}

std::map<std::string, double> Model::evaluate(const datasets::Dataset& data,
                                              EvaluateOptions options) {
  trainer();
  const int64_t steps = options.steps > 0 ? options.steps : steps_of(data);
  const CallbackList callbacks(*this, options.callbacks, options.verbose, 1, steps);
  return run_test(*this, data, callbacks, options.steps, "evaluate");
}

Tensor Model::predict(const Tensor& x, PredictOptions options) {
  const std::vector<Tensor> out = predict(std::vector{x}, std::move(options));
  KILN_CHECK(out.size() == 1, "model '", name(), "' has ", out.size(),
             " outputs; call predict with a list of inputs to get all of them");
  return out[0];
}

std::vector<Tensor> Model::predict(const std::vector<Tensor>& x, PredictOptions options) {
  check_inputs(x, "predict");
  Trainer& t = predicting_trainer();
  const datasets::Dataset data = datasets::Dataset::from_tensor_slices(x).batch(options.batch_size);
  const int64_t steps = options.steps > 0 ? options.steps : steps_of(data);
  const CallbackList callbacks(*this, options.callbacks, options.verbose, 1, steps);
  NoGradGuard no_grad;
  callbacks.each([](Callback& c) { c.on_predict_begin({}); });
  std::vector<std::vector<Tensor>> parts;
  int64_t step = 0;
  for (const datasets::Element& e : data) {
    if (options.steps > 0 && step >= options.steps) break;
    callbacks.each([&](Callback& c) { c.on_predict_batch_begin(step, {}); });
    parts.push_back(t.predict_batch(encode_string_inputs(e)));
    callbacks.each([&](Callback& c) { c.on_predict_batch_end(step, {}); });
    ++step;
  }
  callbacks.each([](Callback& c) { c.on_predict_end({}); });
  KILN_CHECK(!parts.empty(), "predict: no input batches");
  std::vector<Tensor> out;
  for (size_t o = 0; o < parts[0].size(); ++o) {
    std::vector<Tensor> pieces;
    for (const auto& p : parts) pieces.push_back(p[o]);
    // On the host, as Keras returns NumPy arrays.
    out.push_back((pieces.size() == 1 ? pieces[0] : ops::concat(pieces, 0)).to(Device::cpu()));
  }
  return out;
}

std::map<std::string, double> Model::train_on_batch(const std::vector<Tensor>& x,
                                                    const std::vector<Tensor>& y,
                                                    const Tensor& sample_weight) {
  check_inputs(x, "train_on_batch");
  Trainer& t = trainer();
  // Keras's default: metrics accumulate across calls until reset_metrics.
  return t.train_batch(
      {encode_string_inputs(x), y,
       sample_weight.defined() ? std::vector{sample_weight} : std::vector<Tensor>{}});
}

std::map<std::string, double> Model::test_on_batch(const std::vector<Tensor>& x,
                                                   const std::vector<Tensor>& y,
                                                   const Tensor& sample_weight) {
  check_inputs(x, "test_on_batch");
  Trainer& t = trainer();
  NoGradGuard no_grad;
  return t.test_batch(
      {encode_string_inputs(x), y,
       sample_weight.defined() ? std::vector{sample_weight} : std::vector<Tensor>{}});
}

std::vector<Tensor> Model::predict_on_batch(const std::vector<Tensor>& x) {
  check_inputs(x, "predict_on_batch");
  NoGradGuard no_grad;
  std::vector<Tensor> out = predicting_trainer().predict_batch(encode_string_inputs(x));
  for (Tensor& t : out) t = t.to(Device::cpu());  // on the host, as Keras returns NumPy arrays
  return out;
}

}  // namespace kiln
