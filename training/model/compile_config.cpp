#include "kiln/training/model/compile_config.h"

#include "kiln/framework/core/error.h"
#include "kiln/losses/registry.h"
#include "kiln/optimizers/loss_scale_optimizer.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/metrics/registry.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"

namespace kiln {
namespace {

// Keras's deserialize finds a built-in class by its public module.
Config with_module(Config serialized, const char* module) {
  return Config::map()
      .set("module", module)
      .set("class_name", serialized["class_name"])
      .set("config", serialized["config"])
      .set("registered_name", Config());
}

Config loss_config(const LossArg& loss) {
  if (!loss.loss) return loss.name.empty() ? Config() : Config(loss.name);
  return with_module(losses::serialize(*loss.loss), "keras.losses");
}

Config metrics_config(const std::vector<MetricArg>& metrics) {
  if (metrics.empty()) return Config();
  Config list = Config::list();
  for (const MetricArg& m : metrics)
    list.push_back(m.metric ? with_module(metrics::serialize(*m.metric), "keras.metrics")
                            : Config(m.name));
  return list;
}

// A name or a serialized object, as compile takes it.
LossArg loss_arg(const Config& c) {
  if (c.is_string()) return LossArg(c.as_string());
  return LossArg(losses::from_config(c));
}

std::vector<MetricArg> metric_args(const Config* c, const char* key) {
  std::vector<MetricArg> out;
  if (c == nullptr || c->is_null()) return out;
  KILN_CHECK(c->is_list(), c->where(), "compile_config.", key,
             ": a list of metrics is supported (per-output dicts are not)");
  for (const Config& m : c->as_list())
    out.push_back(m.is_string() ? MetricArg(m.as_string()) : MetricArg(metrics::from_config(m)));
  return out;
}

// The optimizer as compile took it: Keras stores that, not the LossScaleOptimizer compile wraps
// it in for a mixed_float16 model (and wraps again when it compiles the loaded model).
const optimizers::Optimizer& compiled_optimizer(const Trainer& trainer) {
  const optimizers::Optimizer& used = trainer.optimizer();
  const auto* scaled = dynamic_cast<const optimizers::LossScaleOptimizer*>(&used);
  const bool given_scaled = dynamic_cast<const optimizers::LossScaleOptimizer*>(
                                trainer.options().optimizer.optimizer.get()) != nullptr;
  return scaled != nullptr && !given_scaled ? scaled->inner() : used;
}

}  // namespace

Config compile_config(const Model& model) {
  const Trainer& trainer = model.trainer();
  const CompileOptions& o = trainer.options();
  Config loss;
  if (!o.losses.empty()) {
    loss = Config::list();
    for (const LossArg& l : o.losses) loss.push_back(loss_config(l));
  } else {
    loss = loss_config(o.loss);
  }
  return Config::map()
      .set("optimizer",
           with_module(optimizers::serialize(compiled_optimizer(trainer)), "keras.optimizers"))
      .set("loss", std::move(loss))
      .set("loss_weights", o.loss_weights.empty() ? Config() : Config(o.loss_weights))
      .set("metrics", metrics_config(o.metrics))
      .set("weighted_metrics", metrics_config(o.weighted_metrics))
      .set("run_eagerly", o.run_eagerly)
      .set("steps_per_execution", o.steps_per_execution)
      .set("jit_compile", false);
}

CompileOptions compile_options_from_config(const Config& config) {
  config.check_keys({"optimizer", "loss", "loss_weights", "metrics", "weighted_metrics",
                     "run_eagerly", "steps_per_execution", "jit_compile", "auto_scale_loss"},
                    "compile_config");
  CompileOptions o;
  if (const Config* opt = config.find("optimizer"); opt != nullptr && !opt->is_null())
    o.optimizer = optimizers::from_config(*opt);
  if (const Config* loss = config.find("loss"); loss != nullptr && !loss->is_null()) {
    KILN_CHECK(!loss->is_map() || loss->contains("class_name"), loss->where(),
               "compile_config.loss: losses by output name are not supported; give a list");
    if (loss->is_list()) {
      for (const Config& l : loss->as_list()) o.losses.push_back(loss_arg(l));
    } else {
      o.loss = loss_arg(*loss);
    }
  }
  if (const Config* w = config.find("loss_weights"); w != nullptr && !w->is_null())
    o.loss_weights = w->as_double_list();
  o.metrics = metric_args(config.find("metrics"), "metrics");
  o.weighted_metrics = metric_args(config.find("weighted_metrics"), "weighted_metrics");
  o.run_eagerly = config.get_bool("run_eagerly", false);
  o.steps_per_execution = config.get_int("steps_per_execution", 1);
  return o;
}

}  // namespace kiln
