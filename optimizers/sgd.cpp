#include "kiln/optimizers/sgd.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::optimizers {

const FieldTable<SGDOptions>& SGD::fields() {
  static const FieldTable<SGDOptions> table{field("momentum", &SGDOptions::momentum),
                                            field("nesterov", &SGDOptions::nesterov)};
  return table;
}

SGD::SGD(OptimizerOptions options, SGDOptions sgd)
    : BuiltinOptimizer(with_default_name(std::move(options), "sgd"), sgd) {
  KILN_CHECK(sgd.momentum >= 0 && sgd.momentum <= 1, "optimizer '", this->options().name,
             "': momentum must be in [0, 1], got ", sgd.momentum);
}

std::vector<Optimizer::SlotGroup> SGD::slot_groups() const {
  if (own().momentum == 0) return {};
  return {{.names = {"momentum"}}};
}

void SGD::update_step(const Tensor& gradient, const Variable& variable,
                      const std::vector<Variable>& slots, const Tensor& lr, const Tensor&) {
  const SGDOptions& sgd = own();
  if (sgd.momentum == 0) {
    variable.assign_sub(gradient * lr);
    return;
  }
  // velocity = momentum * velocity - lr * g; Nesterov looks one velocity step further ahead.
  const Variable& velocity = slots[0];
  velocity.assign(velocity.value() * sgd.momentum - gradient * lr);
  if (sgd.nesterov)
    variable.assign_add(velocity.value() * sgd.momentum - gradient * lr);
  else
    variable.assign_add(velocity.value());
}

}  // namespace kiln::optimizers
