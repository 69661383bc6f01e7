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

void sum_updates_over_replicas(const std::vector<Variable>& variables,
                               const std::vector<Tensor>& before) {
  if (variables.empty()) return;
  // float64 holds every metric state's update exactly (float32 sums, int64 counts below 2^53).
  std::vector<Tensor> deltas;
  for (size_t i = 0; i < variables.size(); ++i)
    deltas.push_back(
        ops::reshape(ops::cast(variables[i].value(), DType::f64) - ops::cast(before[i], DType::f64),
                     Shape({variables[i].shape().numel()})));
  const Tensor summed = ops::all_reduce(deltas.size() == 1 ? deltas[0] : ops::concat(deltas, 0));
  int64_t offset = 0;
  for (size_t i = 0; i < variables.size(); ++i) {
    const Variable& v = variables[i];
    const int64_t n = v.shape().numel();
    const Tensor delta = ops::reshape(ops::slice(summed, {offset}, {n}), v.shape());
    v.assign(ops::cast(ops::cast(before[i], DType::f64) + delta, v.dtype()));
    offset += n;
  }
}

}  // namespace kiln::distribute
