#include "kiln/configs/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "kiln/configs/callback_builder.h"
#include "kiln/configs/data_builder.h"
#include "kiln/configs/interrupt_watch.h"
#include "kiln/configs/keras_objects.h"
#include "kiln/configs/model_builder.h"
#include "kiln/configs/run_callbacks.h"
#include "kiln/configs/yaml_config.h"
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/framework/core/tensor_float_32.h"
#include "kiln/framework/distributed/mpi_communicator.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/dtype_policy.h"
#include "kiln/losses/registry.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/callbacks/csv_logger.h"
#include "kiln/training/callbacks/model_checkpoint.h"
#include "kiln/training/callbacks/tensorboard.h"
#include "kiln/training/distribute/strategy.h"
#include "kiln/training/metrics/registry.h"
#include "kiln/training/model/adapt_layers.h"
#include "kiln/training/model/keras_file.h"
#include "kiln/training/saving/atomic_write.h"

namespace kiln::configs {
namespace {

namespace fs = std::filesystem;

struct Training {
  int epochs = 1;
  uint64_t seed = 42;
  int64_t steps_per_execution = 1;
  bool run_eagerly = false;
  StepShapes step_shapes = StepShapes::model_inputs;
  bool allow_nonfinite_loss = false;  // a run ending with a NaN loss still succeeds
  std::string device;                 // distribute's, for compile ("": compile chooses)
  distribute::StrategyPtr strategy;   // a data-parallel strategy, or null
};

// The device a distribute entry names: refused at its line where this build or machine lacks it;
// a run never falls back from a GPU it names.
std::string device_named(const Config& entry) {
  return located(entry, [&] {
    const std::string name = entry.as_string();
    const Device device = name == "cpu:0" ? Device::cpu() : Device::parse(name);
    (void)backend_for(device);  // says why this build or machine cannot use it
    return device.to_string();
  });
}

// The distribute section: one device (default, one_device: the device for compile, "" when none
// is named and compile chooses), or a data-parallel strategy (mirrored, multi_worker) with its
// gradient bucket size (bucket_mb), whether buckets overlap backward (overlap) and the
// collective timeout (timeout_s).
void read_distribute(const Config& run, Training& t) {
  const Config* d = run.find("distribute");
  if (d == nullptr || d->is_null()) return;
  d->check_keys({"strategy", "devices", "bucket_mb", "timeout_s", "overlap"}, "distribute");
  const std::string strategy = d->get_string("strategy", "default");
  const bool one_device = strategy == "default" || strategy == "one_device";
  std::vector<std::string> devices;
  if (const Config* list = d->find("devices"); list != nullptr && !list->is_null()) {
    KILN_CHECK(!one_device || list->as_list().size() <= 1, list->where(), "strategy '", strategy,
               "' trains on one device, but ", list->as_list().size(), " are named");
    for (const Config& entry : list->as_list()) devices.push_back(device_named(entry));
  }
  if (one_device && !devices.empty()) t.device = devices[0];
  if (one_device) {
    for (const char* key : {"bucket_mb", "overlap", "timeout_s"})
      KILN_CHECK(!d->contains(key), (*d)[key].where(), key, " applies to data-parallel strategies ",
                 "(multi_worker, mirrored), not to '", strategy, "'");
    return;
  }
  t.strategy =
      located((*d)["strategy"], [&] { return distribute::make_strategy(strategy, devices); });
  t.strategy->set_overlap(d->get_bool("overlap", true));
  if (d->contains("bucket_mb"))
    located((*d)["bucket_mb"], [&] {
      const double mb = (*d)["bucket_mb"].as_double();
      KILN_CHECK(std::isfinite(mb) && mb * (1 << 20) >= 1 && mb <= (1 << 20),
                 "bucket_mb must be positive (and at most 1048576), got ", mb);
      t.strategy->set_bucket_bytes(static_cast<int64_t>(mb * (1 << 20)));
      return 0;
    });
  if (d->contains("timeout_s"))
    located((*d)["timeout_s"], [&] {
      const double s = (*d)["timeout_s"].as_double();
      KILN_CHECK(std::isfinite(s) && s >= 0.001 && s <= 1e6,
                 "timeout_s must be at least 0.001 (and at most 1e6), got ", s);
      t.strategy->set_timeout(std::chrono::milliseconds(static_cast<int64_t>(s * 1000)));
      return 0;
    });
}

Training training_of(const Config& run) {
  Training t;
  read_distribute(run, t);
  const Config* c = run.find("training");
  if (c == nullptr || c->is_null()) return t;
  c->check_keys({"epochs", "seed", "steps_per_execution", "run_eagerly", "step_shapes",
                 "allow_nonfinite_loss"},
                "training");
  t.epochs = static_cast<int>(c->get_int("epochs", 1));
  KILN_CHECK(t.epochs >= 1, (*c)["epochs"].where(), "epochs must be at least 1");
  t.seed = static_cast<uint64_t>(c->get_int("seed", 42));
  t.steps_per_execution = c->get_int("steps_per_execution", 1);
  KILN_CHECK(t.steps_per_execution >= 1, (*c)["steps_per_execution"].where(),
             "steps_per_execution must be at least 1");
  t.run_eagerly = c->get_bool("run_eagerly", false);
  t.allow_nonfinite_loss = c->get_bool("allow_nonfinite_loss", false);
  const std::string shapes = c->get_string("step_shapes", "model_inputs");
  if (shapes == "exact")
    t.step_shapes = StepShapes::exact;
  else if (shapes == "reduce_retracing")
    t.step_shapes = StepShapes::reduce_retracing;
  else
    KILN_CHECK(shapes == "model_inputs", (*c)["step_shapes"].where(),
               "step_shapes must be model_inputs, exact or reduce_retracing, got '", shapes, "'");
  return t;
}

// `precision`: a dtype policy's name, or {policy: name, tensor_float_32: bool} (TF32 on a GPU,
// off unless named: framework/core/tensor_float_32.h).
void apply_precision(const Config& run) {
  const Config* p = run.find("precision");
  std::string name = "float32";
  bool tensor_float_32 = false;
  const Config* policy = p;
  if (p != nullptr && p->is_map()) {
    p->check_keys({"policy", "tensor_float_32"}, "precision");
    policy = p->find("policy");
    tensor_float_32 = p->get_bool("tensor_float_32", false);
  }
  if (policy != nullptr && !policy->is_null()) name = policy->as_string();
  located(policy == nullptr ? run : *policy, [&] {
    layers::set_global_policy(name);
    return 0;
  });
  enable_tensor_float_32_execution(tensor_float_32);
}

losses::LossPtr loss_of(const Config& spec) {
  return located(spec, [&] {
    const std::optional<Config> object = keras_object(spec, "loss");
    return object ? losses::from_config(*object) : losses::get(spec.as_string());
  });
}

optimizers::OptimizerPtr optimizer_of(const Config* spec) {
  if (spec == nullptr || spec->is_null()) return optimizers::get("rmsprop");  // Keras's default
  return located(*spec, [&] {
    std::optional<Config> object = keras_object(*spec, "optimizer");
    if (!object) return optimizers::get(spec->as_string());
    // A schedule as {ExponentialDecay: {...}} becomes Keras's form too.
    Config* args = object->find("config");
    if (const Config* rate = args->find("learning_rate"); rate != nullptr && rate->is_map())
      args->set("learning_rate", *keras_object(*rate, "learning_rate"));
    return optimizers::from_config(*object);
  });
}

// Every `monitor` (callbacks, checkpoint) names a value fit logs: the loss or a compiled metric,
// either of them with val_ for the validation data. A misspelt one would only warn at the end
// of the first epoch.
void check_monitors(const Config& run, const std::vector<std::string>& metric_names) {
  std::vector<std::string> known{"loss", "val_loss"};
  for (const std::string& m : metric_names) {
    known.push_back(m);
    known.push_back("val_" + m);
  }
  auto check = [&](const Config& args) {
    const Config* monitor = args.find("monitor");
    if (monitor == nullptr || !monitor->is_string()) return;
    const std::string& name = monitor->as_string();
    if (std::find(known.begin(), known.end(), name) != known.end()) return;
    const std::string hint = did_you_mean(name, known);
    throw Error(detail::concat(monitor->where(), "monitor '", name,
                               "' is not a value fit logs (the loss or a metric of the run, with "
                               "val_ for validation)",
                               hint.empty() ? "" : "; " + hint));
  };
  if (const Config* c = run.find("checkpoint"); c != nullptr && c->is_map()) check(*c);
  if (const Config* list = run.find("callbacks"); list != nullptr && list->is_list())
    for (const Config& entry : list->as_list())
      if (const std::optional<Config> object = keras_object(entry, "a callback"))
        check((*object)["config"]);
}

// Where and how the run's steps run: the training section's part of compile's arguments.
void run_as_trained(const Training& t, CompileOptions& o) {
  o.run_eagerly = t.run_eagerly;
  o.steps_per_execution = t.steps_per_execution;
  o.step_shapes = t.step_shapes;
  o.device = t.device;
  o.strategy = t.strategy;
}

CompileOptions compile_options(const Config& run, const Training& t) {
  KILN_CHECK(run.contains("loss"), run.where(), "a run needs a loss");
  CompileOptions o;
  std::vector<std::string> metric_names;
  o.loss = loss_of(run["loss"]);
  o.optimizer = optimizer_of(run.find("optimizer"));
  if (const Config* metrics = run.find("metrics"); metrics != nullptr && !metrics->is_null()) {
    for (const Config& m : metrics->as_list()) {
      // A class with arguments ({Precision: {thresholds: 0.5}}) is made here; a name is
      // checked here, not at the first batch (where compile resolves it), so that validate
      // finds a misspelt name and the error points into the file.
      if (const std::optional<Config> object = keras_object(m, "a metric")) {
        metrics::MetricPtr metric = located(m, [&] { return metrics::from_config(*object); });
        metric_names.push_back(metric->name());
        o.metrics.emplace_back(std::move(metric));
        continue;
      }
      located(m, [&] {
        metrics::check_compile_name(m.as_string());
        return 0;
      });
      o.metrics.emplace_back(m.as_string());
      metric_names.push_back(m.as_string());
    }
  }
  check_monitors(run, metric_names);
  run_as_trained(t, o);
  return o;
}

std::string output_dir(const Config& run) {
  const Config* out = run.find("output");
  if (out != nullptr && !out->is_null()) {
    out->check_keys({"dir", "save_model"}, "output");
    if (out->contains("dir")) return (*out)["dir"].as_string();
  }
  const std::string name = run["model"].get_string("name", "run");
  return (fs::path("runs") / (name.empty() ? "run" : name)).string();
}

// output.save_model: the .keras file the trained model is saved to, inside the run directory;
// empty when the run asks for none.
std::string saved_model_path(const Config& run, const std::string& out_dir) {
  const Config* out = run.find("output");
  const Config* file = out != nullptr && out->is_map() ? out->find("save_model") : nullptr;
  if (file == nullptr || file->is_null()) return "";
  const std::string& name = file->as_string();
  KILN_CHECK(name.ends_with(".keras"), file->where(),
             "output.save_model must name a .keras file, got '", name, "'");
  return fs::path(name).is_absolute() ? name : (fs::path(out_dir) / name).string();
}

// The TensorBoard callbacks' log directories, for the `tensorboard --logdir` line.
std::vector<std::string> tensorboard_dirs(const std::vector<CallbackPtr>& callbacks) {
  std::vector<std::string> dirs;
  for (const CallbackPtr& c : callbacks)
    if (const auto* board = dynamic_cast<const TensorBoard*>(c.get()))
      dirs.push_back(board->log_dir());
  return dirs;
}

// The checkpoint section as a ModelCheckpoint inside the run directory.
CallbackPtr checkpoint_callback(const Config& run, const std::string& out_dir,
                                const std::string& run_config) {
  const Config* c = run.find("checkpoint");
  if (c == nullptr || c->is_null()) return nullptr;
  // ModelCheckpoint's own fields, and where its files go.
  const ModelCheckpointOptions options =
      read_fields(*c, ModelCheckpointOptions::fields(), "checkpoint", {.run_config = run_config},
                  {"directory", "filename"});
  const fs::path dir = fs::path(out_dir) / c->get_string("directory", "checkpoints");
  const std::string filename =
      c->get_string("filename", options.save_weights_only ? "epoch{epoch:02d}.weights.h5"
                                                          : "epoch{epoch:02d}.h5");
  return located(*c, [&]() -> CallbackPtr {
    return std::make_shared<ModelCheckpoint>((dir / filename).string(), options);
  });
}

// The model section with the data's facts filled in, built.
std::shared_ptr<Model> model_of(const Config& run, const std::map<std::string, Config>& facts,
                                Config& resolved) {
  Config spec = run["model"];
  substitute_data_facts(spec, facts);
  resolved.set("model", spec);
  layers::reset_names();
  return build_model(spec);
}

// The first batch's inputs build a model declared without input shapes.
void build_from_data(Model& model, const datasets::Dataset& data) {
  if (model.built()) return;
  const std::optional<datasets::Element> first = data.iterator(0).next();
  KILN_CHECK(first.has_value(), "the data is empty");
  model.predict_on_batch({(*first)[0]});
}

const std::vector<std::string> kSections{"model",      "data",       "loss",     "optimizer",
                                         "metrics",    "callbacks",  "training", "precision",
                                         "distribute", "checkpoint", "output"};

// A run whose last epoch ended with a NaN or infinite loss trained nothing usable: it fails
// (its checkpoints stay for inspection) rather than report success, unless the run accepts it.
void check_final_loss(const History& history) {
  const auto loss = history.history.find("loss");
  if (loss == history.history.end() || loss->second.empty()) return;
  KILN_CHECK(std::isfinite(loss->second.back()), "training ended with a loss of ",
             loss->second.back(), " in epoch ", history.epoch.back() + 1,
             ": the weights are not usable. Lower optimizer.learning_rate or clip the gradients "
             "(clipnorm), add the TerminateOnNaN callback to stop at the first such batch, or set "
             "training.allow_nonfinite_loss: true to accept it");
}

}  // namespace

Config load_run(const std::string& file, const std::vector<std::string>& overrides) {
  Config run = load_yaml_file(file);
  for (const std::string& o : overrides) apply_override(run, o);
  KILN_CHECK(run.is_map(), file, ": a run file is a map of sections (model, data, loss, ...)");
  run.check_keys(kSections, "a run file");
  for (const char* section : {"model", "data", "loss"})
    KILN_CHECK(run.contains(section), file, ": a run needs a '", section, "' section");
  return run;
}

void validate_run(const Config& run) {
  const Training t = training_of(run);
  apply_precision(run);
  check_data(run["data"]);
  // Stand-ins for what only the data knows.
  const std::map<std::string, Config> facts{{"num_classes", Config(int64_t{2})},
                                            {"vocabulary_size", Config(int64_t{2})},
                                            {"num_features", Config(int64_t{2})}};
  Config resolved = run;
  const std::shared_ptr<Model> model = model_of(run, facts, resolved);
  model->compile(compile_options(run, t));
  const std::string out = output_dir(run);
  // Callbacks make their directories when training starts: building them writes nothing.
  build_callbacks(run.find("callbacks") ? run["callbacks"] : Config(), out);
  checkpoint_callback(run, out, "");
  saved_model_path(run, out);
}

TrainResult train(const Config& run, const TrainOptions& options) {
  const Training t = training_of(run);
  // Ranks that do not train as one would each train alone and write the same files.
  const int ranks = distributed::launched_ranks();
  KILN_CHECK(ranks == 1 || (t.strategy && t.strategy->num_replicas_in_sync() == ranks),
             "kiln train runs as ", ranks, " MPI ranks, but the run's distribute.strategy does ",
             "not train as many replicas: each rank would train alone and write the same files; "
             "set distribute: {strategy: multi_worker} (or mirrored over ",
             ranks, " devices)");
  apply_precision(run);
  random::set_seed(t.seed);
  const RunData data = build_data(run["data"], t.seed);
  Config resolved = run;
  const std::shared_ptr<Model> model = model_of(run, data.facts, resolved);
  // Layers that learn their state from data (Normalization) learn it from the training split.
  for (const std::string& name : adapt_layers(*model, data.train))
    log(LogLevel::info, "adapted layer '", name, "' on the training data");
  model->compile(compile_options(run, t));
  // Data that does not fit the model is refused before the run's directory is touched, so a
  // failed run leaves an earlier run's files as they were.
  model->prepare_for(data.train, "kiln train (data)");

  TrainResult result;
  result.output_dir = output_dir(run);
  // A bad output.save_model is refused now, not after the epochs it would follow.
  const std::string saved_model = saved_model_path(run, result.output_dir);
  result.chief = model->is_chief();
  // One run directory for all replicas: the chief's (the others' file-writing callbacks do not
  // run, training/callbacks/callback.h).
  if (result.chief) {
    fs::create_directories(result.output_dir);
    saving::write_file_atomically((fs::path(result.output_dir) / "config.yaml").string(),
                                  to_yaml(resolved));
    // The data's vocabularies, which evaluate and predict give back to the data they build; an
    // earlier run's, in the same directory, must not outlive it.
    const std::string vocabularies = vocabularies_path(result.output_dir);
    if (!data.vocabularies.empty())
      write_vocabularies(data.vocabularies, vocabularies);
    else
      fs::remove(vocabularies);
  }
  const std::string latest = (fs::path(result.output_dir) / "latest.checkpoint.h5").string();

  const std::string run_config = resolved.to_json();
  std::vector<CallbackPtr> callbacks = build_callbacks(
      run.find("callbacks") ? run["callbacks"] : Config(), result.output_dir, run_config);
  if (CallbackPtr c = checkpoint_callback(run, result.output_dir, run_config))
    callbacks.push_back(c);
  const std::string log_csv = (fs::path(result.output_dir) / "log.csv").string();
  // Before the CSVLogger, which then appends to the log it left.
  if (options.resume || !options.resume_from.empty()) {
    const std::string from = options.resume_from.empty() ? latest : options.resume_from;
    KILN_CHECK(fs::exists(from), "--resume: no checkpoint at ", from,
               options.resume_from.empty() ? " (has this run trained an epoch yet?)" : "");
    callbacks.push_back(std::make_shared<ResumeFrom>(from, log_csv));
  }
  callbacks.push_back(std::make_shared<CSVLogger>(log_csv, ',', options.resume));
  result.tensorboard_dirs = tensorboard_dirs(callbacks);
  auto latest_checkpoint = std::make_shared<LatestCheckpoint>(latest, run_config);
  callbacks.push_back(latest_checkpoint);

  History history;
  {
    const StopOnInterrupt stop_on_interrupt;
    history = model->fit(data.train, {.epochs = t.epochs,
                                      .verbose = options.verbose,
                                      .callbacks = callbacks,
                                      .validation_dataset = data.validation});
  }
  result.interrupted = latest_checkpoint->interrupted();
  if (result.interrupted) return result;
  if (!t.allow_nonfinite_loss) check_final_loss(history);
  if (data.test) result.test_scores = model->evaluate(*data.test, {.verbose = 0});
  result.saved_model = saved_model;
  if (result.chief && !result.saved_model.empty()) model->save(result.saved_model);
  return result;
}

// The run's model, compiled, built and holding `weights`, with the run's data.
std::pair<std::shared_ptr<Model>, RunData> load_trained(const Config& run,
                                                        const std::string& weights) {
  const Training t = training_of(run);
  apply_precision(run);
  random::set_seed(t.seed);
  // The run's vocabularies, where it saved some: the model learned their positions.
  RunData data =
      build_data(run["data"], t.seed, read_vocabularies(vocabularies_path(output_dir(run))));
  if (weights.ends_with(".keras")) {
    // A whole model in place of the run's: its loss, metrics and optimizer as saved (else the
    // run's), run where and how the run says.
    std::shared_ptr<Model> model =
        load_model(weights, {.adjust_compile = [&](CompileOptions& o) { run_as_trained(t, o); }});
    if (!model->compiled()) model->compile(compile_options(run, t));
    return {model, std::move(data)};
  }
  Config resolved = run;
  std::shared_ptr<Model> model = model_of(run, data.facts, resolved);
  // As in training: a weights file holds the adapted statistics (Normalization's) but not a
  // vocabulary (TextVectorization's), which adapting on the same training split gives again.
  (void)adapt_layers(*model, data.train);
  model->compile(compile_options(run, t));
  build_from_data(*model, data.train);
  model->load_weights(weights);
  return {model, std::move(data)};
}

LoadedRun evaluate(const Config& run, const std::string& weights) {
  auto [model, data] = load_trained(run, weights);
  const std::optional<datasets::Dataset>& split = data.test ? data.test : data.validation;
  KILN_CHECK(split.has_value(),
             "evaluate: the run's data has neither a test nor a validation split");
  return {model, model->evaluate(*split, {.verbose = 0})};
}

Tensor predict(const Config& run, const std::string& weights, const Tensor& input) {
  const auto loaded = load_trained(run, weights);
  return loaded.first->predict(input, {.verbose = 0});
}

std::string format_scores(const std::map<std::string, double>& scores, const std::string& prefix) {
  std::string out;
  const auto add = [&](const std::string& name, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.4f", value);
    out += (out.empty() ? "" : " - ") + prefix + name + ": " + buffer;
  };
  if (const auto it = scores.find("loss"); it != scores.end()) add("loss", it->second);
  for (const auto& [name, value] : scores)
    if (name != "loss") add(name, value);
  return out;
}

}  // namespace kiln::configs
