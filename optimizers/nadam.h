#pragma once
// Keras's Nadam: Adam with Nesterov momentum, whose momentum schedule
// u_t = beta_1 * (1 - 0.5 * 0.96^t) is tracked through the running product u_product.
#include "optimizers/optimizer.h"

namespace kiln::optimizers {

struct NadamOptions {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
};

class Nadam : public Optimizer {
 public:
  explicit Nadam(OptimizerOptions options = {}, NadamOptions nadam = {});
  // Keras's config keys: the shared ones plus beta_1, beta_2 and epsilon.
  static OptimizerPtr from_config(const Config& config);

  std::string class_name() const override { return "Nadam"; }
  Config get_config() const override;
  const NadamOptions& nadam_options() const { return nadam_; }

 protected:
  std::vector<SlotGroup> slot_groups() const override;
  void update_shared_state(const Tensor& step) override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;

 private:
  NadamOptions nadam_;
  Variable u_product_;  // float32 scalar: the product of u_1 .. u_t
};

}  // namespace kiln::optimizers
