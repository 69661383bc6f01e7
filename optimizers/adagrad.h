#pragma once
// Keras's Adagrad: each element's rate shrinks with the sum of its squared gradients.
#include <string_view>

#include "kiln/optimizers/builtin_optimizer.h"

namespace kiln::optimizers {

struct AdagradOptions {
  double initial_accumulator_value = 0.1;  // the accumulators' start, >= 0
  double epsilon = 1e-7;
};

class Adagrad : public BuiltinOptimizer<Adagrad, AdagradOptions> {
 public:
  static constexpr std::string_view kClassName = "Adagrad";
  static const FieldTable<AdagradOptions>& fields();

  explicit Adagrad(OptimizerOptions options = {}, AdagradOptions adagrad = {});
  const AdagradOptions& adagrad_options() const { return own(); }

 protected:
  std::vector<SlotGroup> slot_groups() const override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;
};

}  // namespace kiln::optimizers
