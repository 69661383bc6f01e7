#pragma once
// Keras's SGD: plain gradient descent, with (Nesterov) momentum when momentum > 0.
#include "optimizers/optimizer.h"

namespace kiln::optimizers {

struct SGDOptions {
  double momentum = 0.0;  // in [0, 1]
  bool nesterov = false;
};

class SGD : public Optimizer {
 public:
  // Keras's SGD defaults to a rate of 0.01 (the other optimizers to 0.001); options passed in
  // carry their own learning_rate.
  explicit SGD(OptimizerOptions options = {.learning_rate = 0.01}, SGDOptions sgd = {});
  // Keras's config keys: the shared ones plus momentum and nesterov.
  static OptimizerPtr from_config(const Config& config);

  std::string class_name() const override { return "SGD"; }
  Config get_config() const override;
  const SGDOptions& sgd_options() const { return sgd_; }

 protected:
  std::vector<SlotGroup> slot_groups() const override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;

 private:
  SGDOptions sgd_;
};

}  // namespace kiln::optimizers
