#pragma once
// keras.optimizers.LossScaleOptimizer: dynamic loss scaling for float16 training. The train step
// differentiates loss * scale (scale_loss), so small float16 gradients do not flush to zero;
// apply_gradients divides the gradients by the scale and, when all are finite, lets the inner
// optimizer update and counts the step (every dynamic_growth_steps finite steps double the
// scale); when any is inf or NaN it skips the update (weights, slots and iterations stay as they
// were) and halves the scale. compile wraps the optimizer in one under mixed_float16, as Keras.
//
// The skip stays inside a traced step without a branch: each value the inner update writes is
// then selected against the value it had before, so a skipped step writes back what it read.
#include <string>
#include <vector>

#include "kiln/optimizers/optimizer.h"

namespace kiln::optimizers {

struct LossScaleOptions {
  double initial_scale = 32768.0;  // 2**15
  int64_t dynamic_growth_steps = 2000;
};

class LossScaleOptimizer : public Optimizer {
 public:
  explicit LossScaleOptimizer(OptimizerPtr inner, LossScaleOptions options = {},
                              std::string name = "loss_scale_optimizer");
  // Keras's config: {"name", "inner_optimizer": {...}, "initial_scale", "dynamic_growth_steps"}.
  static OptimizerPtr from_config(const Config& config);

  void build(const std::vector<Variable>& variables) override;
  void apply_gradients(const std::vector<Tensor>& gradients,
                       const std::vector<Variable>& variables) override;
  Tensor scale_loss(const Tensor& loss) const override;

  // The rate, the step count and the slots are the inner optimizer's.
  Tensor current_learning_rate() const override { return inner_->current_learning_rate(); }
  void set_learning_rate(double rate) override { inner_->set_learning_rate(rate); }
  double learning_rate() const override { return inner_->learning_rate(); }
  const Variable& iterations() const override { return inner_->iterations(); }
  // Keras's order: this optimizer's own (iteration, learning_rate, step_counter, dynamic_scale),
  // then the inner optimizer's.
  std::vector<Variable> variables() const override;

  std::string class_name() const override { return "LossScaleOptimizer"; }
  Config get_config() const override;

  const Optimizer& inner() const { return *inner_; }
  const Variable& dynamic_scale() const { return dynamic_scale_; }
  const Variable& step_counter() const { return step_counter_; }

 protected:
  std::vector<SlotGroup> slot_groups() const override { return {}; }
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;

 private:
  OptimizerPtr inner_;
  LossScaleOptions options_;
  Variable step_counter_;   // int64: finite steps since the scale last changed
  Variable dynamic_scale_;  // float32
};

}  // namespace kiln::optimizers
