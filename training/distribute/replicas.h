#pragma once
// The replicas one trainer's steps run on: this process's replica of compile's strategy
// ({0, 1} without one), and, where MirroredStrategy runs several replicas as threads of this
// process, their threads and devices. The trainer compiles one replica's steps; this runs them
// on every replica, keeps the replicas' state alike and splits predict's rows between them.
#include <functional>
#include <string>
#include <vector>

#include "kiln/framework/core/device.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/framework/tensor/variable.h"
#include "kiln/training/distribute/strategy.h"

namespace kiln::distribute {

class ReplicaThreads;

class Replicas {
 public:
  // Without a strategy: one replica on `device`.
  Replicas(const StrategyPtr& strategy, Device device);

  // This process's (first) replica.
  const distributed::ReplicaContext& replica() const { return replica_; }
  // How many replicas this process runs: MirroredStrategy's threads, else 1.
  int local_count() const;
  // The device replica i of this process computes on, and all of them, replica 0's first.
  const Device& device(int replica) const;
  std::vector<Device> devices() const;
  // Whether the replicas are threads of this process (their steps must be traced).
  bool threaded() const { return threads_ != nullptr; }

  // Runs fn(i) for each replica i this process runs, under that replica's scopes: at once on the
  // replicas' threads, else fn(0) under replica(). `eager`: functions run eagerly, which threads
  // refuse (each would run the model's C++ code at once).
  void run(const std::function<void(int)>& fn, bool eager) const;
  // Whether `flag` holds on any replica (the flag itself with one): replicas stop together.
  bool on_any(bool flag) const;
  // After the first build, every replica takes rank 0's `state`; replicas in this process get a
  // copy of each variable of `state` and `thread_state` (the metrics, which each replica adds to
  // and the steps sum).
  void broadcast(const std::vector<Variable>& state,
                 const std::vector<Variable>& thread_state) const;
  // A copy per replica of the variables that have none (a predict before fit's broadcast).
  void mirror_missing(const std::vector<Variable>& variables) const;
  // `x`'s rows split over this process's replicas, each predicting its shard at once
  // (predict(shard, i)), the outputs joined in row order on `device`. One replica, fewer than two
  // rows or eager functions: predict(x, 0).
  using ReplicaPredict = std::function<std::vector<Tensor>(const std::vector<Tensor>&, int)>;
  std::vector<Tensor> predict_by_rows(const std::vector<Tensor>& x, const ReplicaPredict& predict,
                                      const Device& device, bool eager) const;

 private:
  distributed::ReplicaContext replica_;
  ReplicaThreads* threads_ = nullptr;  // the strategy's, where it runs replicas as threads
  Device device_;
  std::string strategy_name_;
};

}  // namespace kiln::distribute
