#include "kiln/optimizers/optimizer.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/optimizers/trainable_values.h"

namespace kiln::optimizers {
namespace {

Tensor with_dtype(const Tensor& t, DType dtype) {
  return t.dtype() == dtype ? t : ops::cast(t, dtype);
}

Config optional_number(const std::optional<double>& value) {
  return value ? Config(*value) : Config();
}

// Keras's BaseOptimizer._clip_gradients: a limit that is not positive clips nothing.
std::vector<Tensor> clip_gradients(std::vector<Tensor> gradients, const OptimizerOptions& o) {
  if (o.clipnorm && *o.clipnorm > 0) {
    // tf.clip_by_norm: g * clipnorm / max(||g||, clipnorm).
    for (Tensor& g : gradients)
      g = g * *o.clipnorm / ops::maximum(ops::sqrt(ops::sum(ops::square(g))), *o.clipnorm);
  } else if (o.global_clipnorm && *o.global_clipnorm > 0) {
    const double limit = *o.global_clipnorm;
    Tensor squared = ops::sum(ops::square(gradients.front()));
    for (size_t i = 1; i < gradients.size(); ++i)
      squared = squared + ops::sum(ops::square(gradients[i]));
    const Tensor norm = ops::sqrt(squared);
    // (norm - norm) turns the scale into NaN when the norm is not finite, as Keras's does.
    const Tensor scale = ops::minimum(1.0 / norm, 1.0 / limit) * limit + (norm - norm);
    for (Tensor& g : gradients) g = g * with_dtype(scale, g.dtype());
  } else if (o.clipvalue && *o.clipvalue > 0) {
    for (Tensor& g : gradients) g = ops::clip(g, -*o.clipvalue, *o.clipvalue);
  }
  return gradients;
}

std::string replace_slashes(std::string name) {
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

}  // namespace

Optimizer::Optimizer(OptimizerOptions options)
    : options_(std::move(options)),
      iterations_(zeros({}, DType::i64), options_.name + "/iteration", /*trainable=*/false),
      learning_rate_(scalar(options_.learning_rate), options_.name + "/learning_rate",
                     /*trainable=*/false) {
  if (!options_.schedule)
    check_learning_rate(options_.learning_rate,
                        detail::concat("optimizer '", options_.name, "': learning_rate"));
  const int clips = int{options_.clipnorm.has_value()} + int{options_.clipvalue.has_value()} +
                    int{options_.global_clipnorm.has_value()};
  KILN_CHECK(clips <= 1, "optimizer '", options_.name,
             "': only one of clipnorm, clipvalue and global_clipnorm can be set, got clipnorm=",
             optional_number(options_.clipnorm).to_json(),
             ", clipvalue=", optional_number(options_.clipvalue).to_json(),
             ", global_clipnorm=", optional_number(options_.global_clipnorm).to_json());
}

OptimizerOptions Optimizer::with_default_name(OptimizerOptions options, std::string name) {
  if (options.name.empty()) options.name = std::move(name);
  return options;
}

void Optimizer::build(const std::vector<Variable>& variables) {
  const std::vector<SlotGroup> groups = slot_groups();
  for (const Variable& variable : variables) {
    KILN_CHECK(variable.defined(), "optimizer '", options_.name, "': an undefined variable");
    if (slot_index_.contains(variable.state().get())) continue;
    // Keras's add_variable_from_reference: "<optimizer>/<variable path with _ for />_<slot>".
    const std::string prefix = options_.name + "/" + replace_slashes(variable.name()) + "_";
    VariableSlots entry{variable, {}};
    for (const SlotGroup& group : groups) {
      for (const std::string& slot : group.names) {
        entry.slots.emplace_back(
            full(variable.shape(), group.initial_value, variable.dtype(), variable.meta().device),
            prefix + slot, /*trainable=*/false);
      }
    }
    slot_index_.emplace(variable.state().get(), slots_.size());
    slots_.push_back(std::move(entry));
  }
}

const Optimizer::VariableSlots& Optimizer::slots_of(const Variable& variable) const {
  return slots_[slot_index_.at(variable.state().get())];
}

void Optimizer::apply_gradients(const std::vector<Tensor>& gradients,
                                const std::vector<Variable>& variables) {
  KILN_CHECK(gradients.size() == variables.size(), "optimizer '", options_.name,
             "': ", gradients.size(), " gradients for ", variables.size(), " variables");
  build(variables);
  std::vector<Tensor> grads;
  std::vector<Variable> vars;
  std::string missing;
  for (size_t i = 0; i < gradients.size(); ++i) {
    const Variable& v = variables[i];
    if (!gradients[i].defined()) {
      missing += (missing.empty() ? "'" : ", '") + v.name() + "'";
      continue;
    }
    KILN_CHECK(gradients[i].shape() == v.shape(), "optimizer '", options_.name,
               "': the gradient for variable '", v.name(), "' is ", describe(gradients[i].meta()),
               " but the variable is ", describe(v.meta()));
    grads.push_back(gradients[i]);
    vars.push_back(v);
  }
  KILN_CHECK(!grads.empty(), "optimizer '", options_.name,
             "': no gradients provided for any variable (", missing, ")");
  if (!missing.empty())
    log(LogLevel::warning, "optimizer '", options_.name, "': no gradients for variables ", missing,
        "; they are not updated");

  grads = clip_gradients(std::move(grads), options_);
  const Tensor lr = current_learning_rate();
  // Decoupled weight decay before the update, with the rate of this step: var -= var * wd * lr.
  if (options_.weight_decay) {
    for (const Variable& v : vars) {
      const Tensor value = v.value();
      v.assign(value - value * *options_.weight_decay * with_dtype(lr, v.dtype()));
    }
  }
  const Tensor step = ops::cast(iterations_.value() + 1.0, DType::f32);
  update_shared_state(step);
  for (size_t i = 0; i < vars.size(); ++i) {
    const DType dtype = vars[i].dtype();
    update_step(with_dtype(grads[i], dtype), vars[i], slots_of(vars[i]).slots,
                with_dtype(lr, dtype), with_dtype(step, dtype));
  }
  // Constraints project the updated weights, as Keras's apply does after the update.
  for (const Variable& v : vars)
    if (const auto& constraint = v.constraint()) v.assign(constraint(v.value()));
  iterations_.assign_add(scalar(1, DType::i64, iterations_.meta().device));
}

void Optimizer::update_shared_state(const Tensor&) {}

Tensor Optimizer::current_learning_rate() const {
  if (options_.schedule) return (*options_.schedule)(ops::cast(iterations_.value(), DType::f32));
  return learning_rate_.value();
}

void Optimizer::set_learning_rate(double learning_rate) {
  KILN_CHECK(!options_.schedule, "optimizer '", options_.name,
             "': the learning rate follows the schedule ", options_.schedule->class_name(),
             " and cannot be set; give the optimizer a constant learning_rate to set it");
  check_learning_rate(learning_rate,
                      detail::concat("optimizer '", options_.name, "': learning_rate"));
  learning_rate_.assign(scalar(learning_rate, DType::f32, learning_rate_.meta().device));
}

double Optimizer::learning_rate() const {
  if (options_.schedule) return options_.schedule->at(iterations_.value().item<int64_t>());
  return learning_rate_.value().item<double>();
}

std::vector<Variable> Optimizer::variables() const {
  std::vector<Variable> out{iterations_};
  if (!options_.schedule) out.push_back(learning_rate_);
  size_t first = 0;  // the group's first slot in each VariableSlots::slots
  for (const SlotGroup& group : slot_groups()) {
    for (const VariableSlots& entry : slots_)
      for (size_t j = 0; j < group.names.size(); ++j) out.push_back(entry.slots[first + j]);
    first += group.names.size();
  }
  out.insert(out.end(), extra_variables_.begin(), extra_variables_.end());
  return out;
}

Variable Optimizer::add_variable(const Tensor& initial, const std::string& suffix) {
  return extra_variables_.emplace_back(initial, options_.name + "/" + suffix, /*trainable=*/false);
}

const FieldTable<OptimizerOptions>& optimizer_fields() {
  using O = OptimizerOptions;
  static const FieldTable<O> table{
      field("name", &O::name),
      {"learning_rate",
       [](const Config& rate, O& into, std::string_view) {
         if (rate.is_map())
           into.schedule = schedule_from_config(rate);
         else
           into.learning_rate = rate.as_double();
       },
       [](const O& from) {
         return from.schedule ? serialize(*from.schedule) : Config(from.learning_rate);
       }},
      field("weight_decay", &O::weight_decay),
      field("clipnorm", &O::clipnorm),
      field("global_clipnorm", &O::global_clipnorm),
      field("clipvalue", &O::clipvalue),
      fixed_field<O>("use_ema", Config(false), "kiln has no weight averaging"),
      // These act only with use_ema, so any value of theirs is harmless; kept so configs
      // round-trip.
      field("ema_momentum", &O::ema_momentum),
      field("ema_overwrite_frequency", &O::ema_overwrite_frequency),
      null_field<O>("loss_scale_factor"),
      null_field<O>("gradient_accumulation_steps")};
  return table;
}

Config Optimizer::get_config() const {
  OptimizerOptions written = options_;
  if (!written.schedule) written.learning_rate = learning_rate();  // a callback may have set it
  return write_fields(written, optimizer_fields());
}

}  // namespace kiln::optimizers
