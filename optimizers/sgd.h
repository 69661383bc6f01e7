#pragma once
// Keras's SGD: plain gradient descent, with (Nesterov) momentum when momentum > 0.
#include <string_view>

#include "kiln/optimizers/builtin_optimizer.h"

namespace kiln::optimizers {

struct SGDOptions {
  double momentum = 0.0;  // in [0, 1]
  bool nesterov = false;
};

class SGD : public BuiltinOptimizer<SGD, SGDOptions> {
 public:
  static constexpr std::string_view kClassName = "SGD";
  static const FieldTable<SGDOptions>& fields();
  // Keras's SGD defaults to a rate of 0.01 (the other optimizers to 0.001); options passed in
  // carry their own learning_rate.
  static constexpr double kDefaultLearningRate = 0.01;

  explicit SGD(OptimizerOptions options = {.learning_rate = kDefaultLearningRate},
               SGDOptions sgd = {});
  const SGDOptions& sgd_options() const { return own(); }

 protected:
  std::vector<SlotGroup> slot_groups() const override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;
};

}  // namespace kiln::optimizers
