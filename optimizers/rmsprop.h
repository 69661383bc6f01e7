#pragma once
// Keras's RMSprop: divides the gradient by a moving root mean square of past gradients
// (centered: by their moving standard deviation), with optional plain momentum.
#include "optimizers/optimizer.h"

namespace kiln::optimizers {

struct RMSpropOptions {
  double rho = 0.9;  // the moving averages' decay
  double momentum = 0.0;
  double epsilon = 1e-7;
  bool centered = false;
};

class RMSprop : public Optimizer {
 public:
  explicit RMSprop(OptimizerOptions options = {}, RMSpropOptions rmsprop = {});
  // Keras's config keys: the shared ones plus rho, momentum, epsilon and centered.
  static OptimizerPtr from_config(const Config& config);

  std::string class_name() const override { return "RMSprop"; }
  Config get_config() const override;
  const RMSpropOptions& rmsprop_options() const { return rmsprop_; }

 protected:
  std::vector<SlotGroup> slot_groups() const override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;

 private:
  RMSpropOptions rmsprop_;
};

}  // namespace kiln::optimizers
