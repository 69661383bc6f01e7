#pragma once
// Keras's Nadam: Adam with Nesterov momentum, whose momentum schedule
// u_t = beta_1 * (1 - 0.5 * 0.96^t) is tracked through the running product u_product.
#include <string_view>

#include "kiln/optimizers/builtin_optimizer.h"

namespace kiln::optimizers {

struct NadamOptions {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
};

class Nadam : public BuiltinOptimizer<Nadam, NadamOptions> {
 public:
  static constexpr std::string_view kClassName = "Nadam";
  static const FieldTable<NadamOptions>& fields();

  explicit Nadam(OptimizerOptions options = {}, NadamOptions nadam = {});
  const NadamOptions& nadam_options() const { return own(); }

 protected:
  std::vector<SlotGroup> slot_groups() const override;
  void update_shared_state(const Tensor& step) override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;

 private:
  Variable u_product_;  // float32 scalar: the product of u_1 .. u_t
};

}  // namespace kiln::optimizers
