#include "optimizers/adagrad.h"

#include "framework/core/error.h"
#include "framework/ops/ops.h"
#include "optimizers/registry.h"

namespace kiln::optimizers {

Adagrad::Adagrad(OptimizerOptions options, AdagradOptions adagrad)
    : Optimizer(with_default_name(std::move(options), "adagrad")), adagrad_(adagrad) {
  KILN_CHECK(adagrad_.initial_accumulator_value >= 0, "optimizer '", this->options().name,
             "': initial_accumulator_value must be >= 0, got ", adagrad_.initial_accumulator_value);
}

OptimizerPtr Adagrad::from_config(const Config& config) {
  const AdagradOptions defaults;
  OptimizerOptions options =
      options_from_config(config, "Adagrad", {"initial_accumulator_value", "epsilon"});
  return std::make_shared<Adagrad>(
      std::move(options),
      AdagradOptions{.initial_accumulator_value = config.get_double(
                         "initial_accumulator_value", defaults.initial_accumulator_value),
                     .epsilon = config.get_double("epsilon", defaults.epsilon)});
}

Config Adagrad::get_config() const {
  return Optimizer::get_config()
      .set("initial_accumulator_value", adagrad_.initial_accumulator_value)
      .set("epsilon", adagrad_.epsilon);
}

std::vector<Optimizer::SlotGroup> Adagrad::slot_groups() const {
  return {{.names = {"accumulator"}, .initial_value = adagrad_.initial_accumulator_value}};
}

void Adagrad::update_step(const Tensor& gradient, const Variable& variable,
                          const std::vector<Variable>& slots, const Tensor& lr, const Tensor&) {
  const Variable& accumulator = slots[0];
  accumulator.assign_add(ops::square(gradient));
  variable.assign_sub(lr * gradient / ops::sqrt(accumulator.value() + adagrad_.epsilon));
}

}  // namespace kiln::optimizers
