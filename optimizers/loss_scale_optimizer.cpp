#include "kiln/optimizers/loss_scale_optimizer.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/optimizers/registry.h"

namespace kiln::optimizers {
namespace {

// True (a bool scalar) when no gradient holds an inf or a NaN: the largest magnitude of all is
// below infinity, and a NaN anywhere makes the maximum NaN, which compares false.
Tensor all_finite(const std::vector<Tensor>& gradients) {
  std::vector<Tensor> largest;
  for (const Tensor& g : gradients)
    if (g.defined())
      largest.push_back(ops::reshape(ops::cast(ops::max(ops::abs(g)), DType::f64), {1}));
  // None at all: the inner optimizer says so.
  if (largest.empty()) return scalar(1, DType::boolean);
  return ops::less(ops::max(ops::concat(largest, 0)), std::numeric_limits<double>::infinity());
}

// The variable's value now, kept from the assigns that follow: eagerly they write in place,
// traced they make new values and the read stays what it was.
Tensor value_before_update(const Variable& v) {
  const Tensor value = v.value();
  return value.is_symbolic() ? value : value.clone();
}

}  // namespace

LossScaleOptimizer::LossScaleOptimizer(OptimizerPtr inner, LossScaleOptions options,
                                       std::string name)
    : Optimizer(OptimizerOptions{.learning_rate = 0.0, .name = std::move(name)}),
      inner_(std::move(inner)),
      options_(options),
      step_counter_(add_variable(zeros({}, DType::i64), "step_counter")),
      dynamic_scale_(add_variable(scalar(options.initial_scale), "dynamic_scale")) {
  KILN_CHECK(inner_ != nullptr, "LossScaleOptimizer: no inner optimizer");
  KILN_CHECK(dynamic_cast<const LossScaleOptimizer*>(inner_.get()) == nullptr,
             "LossScaleOptimizer: the inner optimizer scales the loss already");
  KILN_CHECK(options_.initial_scale > 0, "LossScaleOptimizer: initial_scale must be positive, got ",
             options_.initial_scale);
  KILN_CHECK(options_.dynamic_growth_steps >= 1,
             "LossScaleOptimizer: dynamic_growth_steps must be at least 1, got ",
             options_.dynamic_growth_steps);
}

void LossScaleOptimizer::build(const std::vector<Variable>& variables) {
  inner_->build(variables);
}

Tensor LossScaleOptimizer::scale_loss(const Tensor& loss) const {
  return loss * ops::cast(dynamic_scale_.value(), loss.dtype());
}

void LossScaleOptimizer::apply_gradients(const std::vector<Tensor>& gradients,
                                         const std::vector<Variable>& variables) {
  inner_->build(variables);
  const Tensor finite = all_finite(gradients);
  const Tensor scale = dynamic_scale_.value();
  std::vector<Tensor> unscaled;
  for (const Tensor& g : gradients)
    unscaled.push_back(g.defined() ? g / ops::cast(scale, g.dtype()) : g);

  std::vector<Variable> written = variables;
  for (const Variable& v : inner_->variables()) written.push_back(v);
  std::vector<Tensor> before;
  for (const Variable& v : written) before.push_back(value_before_update(v));
  inner_->apply_gradients(unscaled, variables);
  for (size_t i = 0; i < written.size(); ++i)
    written[i].assign(ops::where(finite, written[i].value(), before[i]));

  // Finite: count the step, doubling the scale at the growth interval. Not: halve it, restart.
  const Tensor counter = step_counter_.value();
  const Tensor last =
      scalar(static_cast<double>(options_.dynamic_growth_steps - 1), DType::i64, counter.device());
  const Tensor grow = ops::logical_and(finite, ops::equal(counter, last));
  const Tensor zero = ops::zeros_like(counter);
  step_counter_.assign(ops::where(finite, ops::where(grow, zero, counter + 1.0), zero));
  dynamic_scale_.assign(ops::where(grow, scale * 2.0, ops::where(finite, scale, scale * 0.5)));
}

std::vector<Variable> LossScaleOptimizer::variables() const {
  std::vector<Variable> out = Optimizer::variables();
  for (const Variable& v : inner_->variables()) out.push_back(v);
  return out;
}

void LossScaleOptimizer::update_step(const Tensor&, const Variable&, const std::vector<Variable>&,
                                     const Tensor&, const Tensor&) {
  throw Error("LossScaleOptimizer updates through its inner optimizer");
}

Config LossScaleOptimizer::get_config() const {
  Config config = Config::map();
  config.set("name", Config(options().name));
  config.set("inner_optimizer", serialize(*inner_));
  config.set("initial_scale", Config(options_.initial_scale));
  config.set("dynamic_growth_steps", Config(options_.dynamic_growth_steps));
  return config;
}

OptimizerPtr LossScaleOptimizer::from_config(const Config& config) {
  // Keras wrote the base optimizer's keys in older configs and still reads them at the values
  // that switch them off (and dynamic: true); anything else belongs on the inner optimizer.
  static const std::vector<std::pair<std::string, Config>> switched_off{
      {"weight_decay", Config()},
      {"clipnorm", Config()},
      {"global_clipnorm", Config()},
      {"clipvalue", Config()},
      {"use_ema", Config(false)},
      {"ema_momentum", Config(0.99)},
      {"ema_overwrite_frequency", Config()},
      {"loss_scale_factor", Config()},
      {"gradient_accumulation_steps", Config()},
      {"dynamic", Config(true)}};
  std::vector<std::string> keys{"name", "inner_optimizer", "initial_scale", "dynamic_growth_steps"};
  for (const auto& [key, off] : switched_off) {
    keys.push_back(key);
    if (const Config* value = config.find(key))
      KILN_CHECK(*value == off, value->where(), "LossScaleOptimizer does not take ", key, "=",
                 value->to_json(), "; set it on the inner_optimizer");
  }
  config.check_keys(keys, "LossScaleOptimizer");
  KILN_CHECK(config.contains("inner_optimizer"), config.where(),
             "LossScaleOptimizer needs an inner_optimizer");
  LossScaleOptions options;
  options.initial_scale = config.get_double("initial_scale", options.initial_scale);
  options.dynamic_growth_steps =
      config.get_int("dynamic_growth_steps", options.dynamic_growth_steps);
  return std::make_shared<LossScaleOptimizer>(optimizers::from_config(config["inner_optimizer"]),
                                              options,
                                              config.get_string("name", "loss_scale_optimizer"));
}

}  // namespace kiln::optimizers
