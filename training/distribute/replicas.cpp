#include "kiln/training/distribute/replicas.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/communicator.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/training/distribute/batch_shard.h"
#include "kiln/training/distribute/replica_threads.h"
#include "kiln/training/distribute/replica_updates.h"

namespace kiln::distribute {

Replicas::Replicas(const StrategyPtr& strategy, Device device) : device_(std::move(device)) {
  if (!strategy) return;
  replica_ = {strategy->replica_id(), strategy->num_replicas_in_sync()};
  threads_ = strategy->replica_threads();
  strategy_name_ = strategy->class_name();
}

int Replicas::local_count() const {
  return threads_ != nullptr ? threads_->size() : 1;
}

const Device& Replicas::device(int replica) const {
  return threads_ != nullptr ? threads_->device(replica) : device_;
}

std::vector<Device> Replicas::devices() const {
  std::vector<Device> out;
  for (int r = 0; r < local_count(); ++r) out.push_back(device(r));
  return out;
}

void Replicas::run(const std::function<void(int)>& fn, bool eager) const {
  if (threads_ == nullptr) {
    const distributed::ReplicaScope scope(replica_);
    fn(0);
    return;
  }
  KILN_CHECK(!eager, strategy_name_,
             " runs its replicas as threads of one process, whose steps must be traced: ",
             "functions cannot run eagerly under it");
  threads_->run(fn);
}

bool Replicas::on_any(bool flag) const {
  // Replicas in threads follow this one's loop: its flag is theirs.
  if (replica_.count == 1 || threads_ != nullptr) return flag;
  const Tensor value = from_vector<int32_t>({flag ? 1 : 0}, {1}, DType::i32, Device::cpu());
  distributed::world().all_reduce(value, distributed::ReduceOp::max, "the replicas' stop flags");
  return value.item<int32_t>() != 0;
}

void Replicas::broadcast(const std::vector<Variable>& state,
                         const std::vector<Variable>& thread_state) const {
  if (replica_.count == 1) return;
  if (threads_ == nullptr) {
    broadcast_from_rank0(state);
    return;
  }
  const std::vector<Device> all = devices();
  for (const auto& group : {state, thread_state})
    for (const Variable& v : group) v.mirror(all);
}

void Replicas::mirror_missing(const std::vector<Variable>& variables) const {
  const std::vector<Device> all = devices();
  for (const Variable& v : variables)
    if (!v.mirrored()) v.mirror(all);
}

std::vector<Tensor> Replicas::predict_by_rows(const std::vector<Tensor>& x,
                                              const ReplicaPredict& predict, const Device& device,
                                              bool eager) const {
  const int64_t rows = x.empty() || x[0].rank() == 0 ? 0 : x[0].shape()[0];
  // Eager steps would run the model's C++ code on every replica's thread at once.
  if (local_count() == 1 || rows < 2 || eager) return predict(x, 0);
  std::vector<std::vector<Tensor>> parts(static_cast<size_t>(local_count()));
  run(
      [&](int r) {
        // A batch of fewer rows than replicas leaves the last replicas none; predict has no
        // collective to wait for them.
        const std::vector<Tensor> shard = shard_of(x, r, local_count());
        if (shard[0].shape()[0] > 0) parts[static_cast<size_t>(r)] = predict(shard, r);
      },
      eager);
  std::vector<Tensor> out;
  for (size_t o = 0; o < parts[0].size(); ++o) {
    std::vector<Tensor> rows_of;
    for (const std::vector<Tensor>& part : parts)
      if (!part.empty()) rows_of.push_back(part[o].to(device));
    out.push_back(ops::concat(rows_of, 0));
  }
  return out;
}

}  // namespace kiln::distribute
