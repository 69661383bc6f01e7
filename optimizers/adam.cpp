#include "kiln/optimizers/adam.h"

#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/optimizer_ops.h"

namespace kiln::optimizers {
namespace {

OptimizerOptions with_weight_decay(OptimizerOptions options) {
  if (!options.weight_decay) options.weight_decay = AdamW::kDefaultWeightDecay;
  return options;
}

// The one-pass update runs float32 and float64 variables on devices with its kernel; others
// take the same update as separate ops.
bool has_update_kernel(const Variable& variable) {
  const DType dtype = variable.dtype();
  return (dtype == DType::f32 || dtype == DType::f64) &&
         op_def(OpId::adam_update).kernels[static_cast<size_t>(variable.value().device().type)] !=
             nullptr;
}

}  // namespace

const FieldTable<AdamOptions>& Adam::fields() {
  static const FieldTable<AdamOptions> table{
      field("beta_1", &AdamOptions::beta_1), field("beta_2", &AdamOptions::beta_2),
      field("epsilon", &AdamOptions::epsilon), field("amsgrad", &AdamOptions::amsgrad)};
  return table;
}

Adam::Adam(OptimizerOptions options, AdamOptions adam) : Adam(std::move(options), adam, "adam") {}

Adam::Adam(OptimizerOptions options, AdamOptions adam, std::string default_name)
    : BuiltinOptimizer(with_default_name(std::move(options), std::move(default_name)), adam) {}

std::vector<Optimizer::SlotGroup> Adam::slot_groups() const {
  std::vector<SlotGroup> groups{{.names = {"momentum", "velocity"}}};
  if (own().amsgrad) groups.push_back({.names = {"velocity_hat"}});
  return groups;
}

void Adam::update_step(const Tensor& gradient, const Variable& variable,
                       const std::vector<Variable>& slots, const Tensor& lr, const Tensor& step) {
  const AdamOptions& adam = own();
  const Variable& m = slots[0];
  const Variable& v = slots[1];
  const Tensor beta_1_power = ops::pow(scalar(adam.beta_1, step.dtype(), step.device()), step);
  const Tensor beta_2_power = ops::pow(scalar(adam.beta_2, step.dtype(), step.device()), step);
  // The bias corrections of both moments folded into the rate.
  const Tensor alpha = lr * ops::sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power);
  if (!adam.amsgrad && has_update_kernel(variable)) {
    const Tensor rate = ops::cast(alpha, variable.dtype());
    const ops::AdamUpdate next = ops::adam_update(variable.value(), m.value(), v.value(), gradient,
                                                  rate, adam.beta_1, adam.beta_2, adam.epsilon);
    m.assign(next.m);
    v.assign(next.v);
    variable.assign(next.variable);
    return;
  }
  m.assign_add((gradient - m.value()) * (1 - adam.beta_1));
  v.assign_add((ops::square(gradient) - v.value()) * (1 - adam.beta_2));
  Tensor second_moment = v.value();
  if (adam.amsgrad) {
    const Variable& v_hat = slots[2];
    v_hat.assign(ops::maximum(v_hat.value(), second_moment));
    second_moment = v_hat.value();
  }
  variable.assign_sub(m.value() * alpha / (ops::sqrt(second_moment) + adam.epsilon));
}

AdamW::AdamW(OptimizerOptions options, AdamOptions adam)
    : Adam(with_weight_decay(std::move(options)), adam, "adam_w") {}

OptimizerPtr AdamW::from_config(const Config& config) {
  OptimizerOptions options = shared_options_from_config(config, kClassName);
  return std::make_shared<AdamW>(std::move(options), own_from_config(config, kClassName));
}

}  // namespace kiln::optimizers
