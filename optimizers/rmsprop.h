#pragma once
// Keras's RMSprop: divides the gradient by a moving root mean square of past gradients
// (centered: by their moving standard deviation), with optional plain momentum.
#include <string_view>

#include "kiln/optimizers/builtin_optimizer.h"

namespace kiln::optimizers {

struct RMSpropOptions {
  double rho = 0.9;  // the moving averages' decay
  double momentum = 0.0;
  double epsilon = 1e-7;
  bool centered = false;
};

class RMSprop : public BuiltinOptimizer<RMSprop, RMSpropOptions> {
 public:
  static constexpr std::string_view kClassName = "RMSprop";
  static const FieldTable<RMSpropOptions>& fields();

  explicit RMSprop(OptimizerOptions options = {}, RMSpropOptions rmsprop = {});
  const RMSpropOptions& rmsprop_options() const { return own(); }

 protected:
  std::vector<SlotGroup> slot_groups() const override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;
};

}  // namespace kiln::optimizers
