#include "kiln/optimizers/rmsprop.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::optimizers {

const FieldTable<RMSpropOptions>& RMSprop::fields() {
  static const FieldTable<RMSpropOptions> table{
      field("rho", &RMSpropOptions::rho), field("momentum", &RMSpropOptions::momentum),
      field("epsilon", &RMSpropOptions::epsilon), field("centered", &RMSpropOptions::centered)};
  return table;
}

// Keras's auto name for the class RMSprop is "rm_sprop".
RMSprop::RMSprop(OptimizerOptions options, RMSpropOptions rmsprop)
    : BuiltinOptimizer(with_default_name(std::move(options), "rm_sprop"), rmsprop) {}

std::vector<Optimizer::SlotGroup> RMSprop::slot_groups() const {
  std::vector<SlotGroup> groups{{.names = {"velocity"}}};
  if (own().momentum > 0) groups.push_back({.names = {"momentum"}});
  if (own().centered) groups.push_back({.names = {"average_gradient"}});
  return groups;
}

void RMSprop::update_step(const Tensor& gradient, const Variable& variable,
                          const std::vector<Variable>& slots, const Tensor& lr, const Tensor&) {
  const RMSpropOptions& rmsprop = own();
  const double rho = rmsprop.rho;
  const Variable& velocity = slots[0];
  velocity.assign(velocity.value() * rho + ops::square(gradient) * (1 - rho));
  Tensor denominator;
  if (rmsprop.centered) {
    const Variable& average_gradient = slots.back();
    average_gradient.assign(average_gradient.value() * rho + gradient * (1 - rho));
    denominator = velocity.value() - ops::square(average_gradient.value()) + rmsprop.epsilon;
  } else {
    denominator = velocity.value() + rmsprop.epsilon;
  }
  const Tensor increment = lr * gradient / ops::sqrt(denominator);
  if (rmsprop.momentum > 0) {
    const Variable& momentum = slots[1];
    momentum.assign(momentum.value() * rmsprop.momentum + increment);
    variable.assign_sub(momentum.value());
  } else {
    variable.assign_sub(increment);
  }
}

}  // namespace kiln::optimizers
