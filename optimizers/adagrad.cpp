#include "kiln/optimizers/adagrad.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::optimizers {

const FieldTable<AdagradOptions>& Adagrad::fields() {
  static const FieldTable<AdagradOptions> table{
      field("initial_accumulator_value", &AdagradOptions::initial_accumulator_value),
      field("epsilon", &AdagradOptions::epsilon)};
  return table;
}

Adagrad::Adagrad(OptimizerOptions options, AdagradOptions adagrad)
    : BuiltinOptimizer(with_default_name(std::move(options), "adagrad"), adagrad) {
  KILN_CHECK(adagrad.initial_accumulator_value >= 0, "optimizer '", this->options().name,
             "': initial_accumulator_value must be >= 0, got ", adagrad.initial_accumulator_value);
}

std::vector<Optimizer::SlotGroup> Adagrad::slot_groups() const {
  return {{.names = {"accumulator"}, .initial_value = own().initial_accumulator_value}};
}

void Adagrad::update_step(const Tensor& gradient, const Variable& variable,
                          const std::vector<Variable>& slots, const Tensor& lr, const Tensor&) {
  const Variable& accumulator = slots[0];
  accumulator.assign_add(ops::square(gradient));
  variable.assign_sub(lr * gradient / ops::sqrt(accumulator.value() + own().epsilon));
}

}  // namespace kiln::optimizers
