#include "kiln/training/distribute/replica_updates.h"

#include "kiln/framework/distributed/communicator.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::distribute {

std::vector<Tensor> values_before(const std::vector<Variable>& variables) {
  std::vector<Tensor> out;
  for (const Variable& v : variables) {
    const Tensor value = v.value();
    out.push_back(value.is_symbolic() ? value : value.clone());
  }
  return out;
}

void broadcast_from_rank0(const std::vector<Variable>& variables) {
  distributed::Communicator& world = distributed::world();
  for (const Variable& v : variables) {
    const Tensor host = v.value().to(Device::cpu()).clone();
    world.broadcast(host, 0, "variable '" + v.name() + "'");
    v.assign(host.to(v.meta().device));
  }
}

namespace {

// The variables' updates since `before`, flattened into one float64 vector (float64 holds every
// metric state's update exactly: float32 sums, int64 counts below 2^53).
std::vector<Tensor> flat_updates(const std::vector<Variable>& variables,
                                 const std::vector<Tensor>& before) {
  std::vector<Tensor> deltas;
  for (size_t i = 0; i < variables.size(); ++i)
    deltas.push_back(
        ops::reshape(ops::cast(variables[i].value(), DType::f64) - ops::cast(before[i], DType::f64),
                     Shape({variables[i].shape().numel()})));
  return deltas;
}

// Each variable := before + its part of `updates` (flat, in the variables' order).
void assign_updates(const std::vector<Variable>& variables, const std::vector<Tensor>& before,
                    const Tensor& updates) {
  int64_t offset = 0;
  for (size_t i = 0; i < variables.size(); ++i) {
    const Variable& v = variables[i];
    const int64_t n = v.shape().numel();
    const Tensor delta = ops::reshape(ops::slice(updates, {offset}, {n}), v.shape());
    v.assign(ops::cast(ops::cast(before[i], DType::f64) + delta, v.dtype()));
    offset += n;
  }
}

}  // namespace

void sum_updates_over_replicas(const std::vector<Variable>& variables,
                               const std::vector<Tensor>& before) {
  if (variables.empty()) return;
  const std::vector<Tensor> deltas = flat_updates(variables, before);
  assign_updates(variables, before,
                 ops::all_reduce(deltas.size() == 1 ? deltas[0] : ops::concat(deltas, 0)));
}

void average_updates_over_replicas(const std::vector<Variable>& variables,
                                   const std::vector<Tensor>& before, const Tensor& rows) {
  if (variables.empty()) return;
  const Tensor weight = ops::reshape(ops::cast(rows, DType::f64), Shape({1}));
  const Tensor has_rows = ops::greater(weight, 0.0);
  std::vector<Tensor> parts;
  for (const Tensor& d : flat_updates(variables, before))
    parts.push_back(ops::where(has_rows, d * weight, ops::zeros_like(d)));
  parts.push_back(weight);
  const Tensor summed = ops::all_reduce(ops::concat(parts, 0));
  const int64_t n = summed.shape()[0] - 1;
  const Tensor total = ops::slice(summed, {n}, {1});
  const Tensor averaged = ops::slice(summed, {0}, {n}) / ops::maximum(total, ops::ones_like(total));
  assign_updates(variables, before, averaged);
}

}  // namespace kiln::distribute
