#include "kiln/optimizers/nadam.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::optimizers {
namespace {

constexpr double kMomentumDecay = 0.96;  // Keras's fixed decay of the momentum schedule

// u_t = beta_1 * (1 - 0.5 * 0.96^t), in `beta_1`'s dtype.
Tensor momentum_at(const Tensor& beta_1, const Tensor& t) {
  return beta_1 * (1.0 - ops::pow(scalar(kMomentumDecay, t.dtype(), t.device()), t) * 0.5);
}

}  // namespace

const FieldTable<NadamOptions>& Nadam::fields() {
  static const FieldTable<NadamOptions> table{field("beta_1", &NadamOptions::beta_1),
                                              field("beta_2", &NadamOptions::beta_2),
                                              field("epsilon", &NadamOptions::epsilon)};
  return table;
}

Nadam::Nadam(OptimizerOptions options, NadamOptions nadam)
    : BuiltinOptimizer(with_default_name(std::move(options), "nadam"), nadam),
      u_product_(add_variable(scalar(1.0), "u_product")) {}

std::vector<Optimizer::SlotGroup> Nadam::slot_groups() const {
  return {{.names = {"momentum", "velocity"}}};
}

void Nadam::update_shared_state(const Tensor& step) {
  // Keras multiplies in this order: u_product * beta_1 * (1 - 0.5 * 0.96^t).
  const Tensor decayed = ops::pow(scalar(kMomentumDecay, step.dtype(), step.device()), step);
  u_product_.assign(u_product_.value() * own().beta_1 * (1.0 - decayed * 0.5));
}

void Nadam::update_step(const Tensor& gradient, const Variable& variable,
                        const std::vector<Variable>& slots, const Tensor& lr, const Tensor& step) {
  const NadamOptions& nadam = own();
  const DType dtype = variable.dtype();
  // Keras casts beta_1 and beta_2 to the variable's dtype first, so 1 - beta rounds there too.
  const Tensor beta_1 = scalar(nadam.beta_1, dtype, step.device());
  const Tensor beta_2 = scalar(nadam.beta_2, dtype, step.device());
  const Tensor u_t = momentum_at(beta_1, step);
  const Tensor u_t_1 = momentum_at(beta_1, step + 1.0);
  // u_product already includes this step's u_t (update_shared_state ran first).
  const Tensor u_product_t = ops::cast(u_product_.value(), dtype);
  const Tensor u_product_t_1 = u_product_t * u_t_1;
  const Tensor beta_2_power = ops::pow(beta_2, step);

  const Variable& m = slots[0];
  const Variable& v = slots[1];
  m.assign_add((gradient - m.value()) * (1.0 - beta_1));
  v.assign_add((ops::square(gradient) - v.value()) * (1.0 - beta_2));
  const Tensor m_hat =
      u_t_1 * m.value() / (1.0 - u_product_t_1) + (1.0 - u_t) * gradient / (1.0 - u_product_t);
  const Tensor v_hat = v.value() / (1.0 - beta_2_power);
  variable.assign_sub(m_hat * lr / (ops::sqrt(v_hat) + nadam.epsilon));
}

}  // namespace kiln::optimizers
