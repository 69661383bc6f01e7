#pragma once
// Keras's Adam (with the AMSGrad variant) and AdamW, which is Adam with decoupled weight decay
// on by default.
#include <string>
#include <string_view>

#include "kiln/optimizers/builtin_optimizer.h"

namespace kiln::optimizers {

struct AdamOptions {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
};

class Adam : public BuiltinOptimizer<Adam, AdamOptions> {
 public:
  static constexpr std::string_view kClassName = "Adam";
  static const FieldTable<AdamOptions>& fields();

  explicit Adam(OptimizerOptions options = {}, AdamOptions adam = {});
  const AdamOptions& adam_options() const { return own(); }

 protected:
  Adam(OptimizerOptions options, AdamOptions adam, std::string default_name);
  std::vector<SlotGroup> slot_groups() const override;
  void update_step(const Tensor& gradient, const Variable& variable,
                   const std::vector<Variable>& slots, const Tensor& lr,
                   const Tensor& step) override;
};

class AdamW : public Adam {
 public:
  static constexpr std::string_view kClassName = "AdamW";
  static constexpr double kDefaultWeightDecay = 0.004;  // Keras's, used when none is given
  explicit AdamW(OptimizerOptions options = {}, AdamOptions adam = {});
  // Adam's config keys.
  static OptimizerPtr from_config(const Config& config);

  std::string class_name() const override { return std::string(kClassName); }
};

}  // namespace kiln::optimizers
