#pragma once
// Keras's Adam (with the AMSGrad variant) and AdamW, which is Adam with decoupled weight decay
// on by default.
#include <string>

#include "optimizers/optimizer.h"

namespace kiln::optimizers {

struct AdamOptions {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
};

class Adam : public Optimizer {
 public:
  explicit Adam(OptimizerOptions options = {}, AdamOptions adam = {});
  // Keras's config keys: the shared ones plus beta_1, beta_2, epsilon and amsgrad.
  static OptimizerPtr from_config(const Config& config);

  std::string class_name() const override { return "Adam"; }
  Config get_config() const override;
  const AdamOptions& adam_options() const { return adam_; }

 protected:
  Adam(OptimizerOptions options, AdamOptions adam, std::string default_name);
  std::vector<SlotGroup> slot_groups() const override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;

 private:
  AdamOptions adam_;
};

class AdamW : public Adam {
 public:
  static constexpr double kDefaultWeightDecay = 0.004;  // Keras's, used when none is given
  explicit AdamW(OptimizerOptions options = {}, AdamOptions adam = {});
  static OptimizerPtr from_config(const Config& config);

  std::string class_name() const override { return "AdamW"; }
};

}  // namespace kiln::optimizers
