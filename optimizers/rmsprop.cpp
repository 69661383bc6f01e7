#include "optimizers/rmsprop.h"

#include "framework/ops/ops.h"
#include "optimizers/registry.h"

namespace kiln::optimizers {

// Keras's auto name for the class RMSprop is "rm_sprop".
RMSprop::RMSprop(OptimizerOptions options, RMSpropOptions rmsprop)
    : Optimizer(with_default_name(std::move(options), "rm_sprop")), rmsprop_(rmsprop) {}

OptimizerPtr RMSprop::from_config(const Config& config) {
  const RMSpropOptions defaults;
  OptimizerOptions options =
      options_from_config(config, "RMSprop", {"rho", "momentum", "epsilon", "centered"});
  return std::make_shared<RMSprop>(
      std::move(options),
      RMSpropOptions{.rho = config.get_double("rho", defaults.rho),
                     .momentum = config.get_double("momentum", defaults.momentum),
                     .epsilon = config.get_double("epsilon", defaults.epsilon),
                     .centered = config.get_bool("centered", defaults.centered)});
}

Config RMSprop::get_config() const {
  return Optimizer::get_config()
      .set("rho", rmsprop_.rho)
      .set("momentum", rmsprop_.momentum)
      .set("epsilon", rmsprop_.epsilon)
      .set("centered", rmsprop_.centered);
}

std::vector<Optimizer::SlotGroup> RMSprop::slot_groups() const {
  std::vector<SlotGroup> groups{{.names = {"velocity"}}};
  if (rmsprop_.momentum > 0) groups.push_back({.names = {"momentum"}});
  if (rmsprop_.centered) groups.push_back({.names = {"average_gradient"}});
  return groups;
}

void RMSprop::update_step(const Tensor& gradient, const Variable& variable,
                          const std::vector<Variable>& slots, const Tensor& lr, const Tensor&) {
  const double rho = rmsprop_.rho;
  const Variable& velocity = slots[0];
  velocity.assign(velocity.value() * rho + ops::square(gradient) * (1 - rho));
  Tensor denominator;
  if (rmsprop_.centered) {
    const Variable& average_gradient = slots.back();
    average_gradient.assign(average_gradient.value() * rho + gradient * (1 - rho));
    denominator = velocity.value() - ops::square(average_gradient.value()) + rmsprop_.epsilon;
  } else {
    denominator = velocity.value() + rmsprop_.epsilon;
  }
  const Tensor increment = lr * gradient / ops::sqrt(denominator);
  if (rmsprop_.momentum > 0) {
    const Variable& momentum = slots[1];
    momentum.assign(momentum.value() * rmsprop_.momentum + increment);
    variable.assign_sub(momentum.value());
  } else {
    variable.assign_sub(increment);
  }
}

}  // namespace kiln::optimizers
