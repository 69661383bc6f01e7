#include "optimizers/sgd.h"

#include "framework/core/error.h"
#include "framework/ops/ops.h"
#include "optimizers/registry.h"

namespace kiln::optimizers {

SGD::SGD(OptimizerOptions options, SGDOptions sgd)
    : Optimizer(with_default_name(std::move(options), "sgd")), sgd_(sgd) {
  KILN_CHECK(sgd_.momentum >= 0 && sgd_.momentum <= 1, "optimizer '", this->options().name,
             "': momentum must be in [0, 1], got ", sgd_.momentum);
}

OptimizerPtr SGD::from_config(const Config& config) {
  const SGDOptions defaults;
  OptimizerOptions options = options_from_config(config, "SGD", {"momentum", "nesterov"}, 0.01);
  return std::make_shared<SGD>(
      std::move(options), SGDOptions{.momentum = config.get_double("momentum", defaults.momentum),
                                     .nesterov = config.get_bool("nesterov", defaults.nesterov)});
}

Config SGD::get_config() const {
  return Optimizer::get_config().set("momentum", sgd_.momentum).set("nesterov", sgd_.nesterov);
}

std::vector<Optimizer::SlotGroup> SGD::slot_groups() const {
  if (sgd_.momentum == 0) return {};
  return {{.names = {"momentum"}}};
}

void SGD::update_step(const Tensor& gradient, const Variable& variable,
                      const std::vector<Variable>& slots, const Tensor& lr, const Tensor&) {
  if (sgd_.momentum == 0) {
    variable.assign_sub(gradient * lr);
    return;
  }
  // velocity = momentum * velocity - lr * g; Nesterov looks one velocity step further ahead.
  const Variable& velocity = slots[0];
  velocity.assign(velocity.value() * sgd_.momentum - gradient * lr);
  if (sgd_.nesterov)
    variable.assign_add(velocity.value() * sgd_.momentum - gradient * lr);
  else
    variable.assign_add(velocity.value());
}

}  // namespace kiln::optimizers
