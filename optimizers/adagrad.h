#pragma once
// Keras's Adagrad: each element's rate shrinks with the sum of its squared gradients.
#include "optimizers/optimizer.h"

namespace kiln::optimizers {

struct AdagradOptions {
  double initial_accumulator_value = 0.1;  // the accumulators' start, >= 0
  double epsilon = 1e-7;
};

class Adagrad : public Optimizer {
 public:
  explicit Adagrad(OptimizerOptions options = {}, AdagradOptions adagrad = {});
  // Keras's config keys: the shared ones plus initial_accumulator_value and epsilon.
  static OptimizerPtr from_config(const Config& config);

  std::string class_name() const override { return "Adagrad"; }
  Config get_config() const override;
  const AdagradOptions& adagrad_options() const { return adagrad_; }

 protected:
  std::vector<SlotGroup> slot_groups() const override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;

 private:
  AdagradOptions adagrad_;
};

}  // namespace kiln::optimizers
