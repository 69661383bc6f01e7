#pragma once
// Keras's tf.distribute strategies: where the replicas of a model train and how they agree. Each
// replica takes its shard of every global batch, and the traced train step sums the gradients over
// the replicas (gradient buckets, overlapped with backward) before the optimizer runs, so the
// replicas stay equal and train as one device would on the whole batch. MirroredStrategy's
// replicas are threads of one process, each with its copy of the variables (mirrored variables);
// MultiWorkerMirroredStrategy's are processes (SPMD: every process builds the same model).
//
//   auto strategy = std::make_shared<distribute::MultiWorkerMirroredStrategy>();
//   {
//     const distribute::StrategyScope scope(strategy);
//     model = build_model();
//     model->compile({...});
//   }
//   model->fit(x, y, {.batch_size = 128});  // the global batch; each of N ranks takes 128 / N
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/core/device.h"
#include "kiln/framework/distributed/communicator.h"
#include "kiln/training/distribute/replica_threads.h"

namespace kiln::distribute {

// About PyTorch DDP's and Keras's default bucket: large enough that each all-reduce runs near
// the link's bandwidth, small enough that the first starts long before backward ends.
inline constexpr int64_t kDefaultBucketBytes = int64_t{25} << 20;

class Strategy {
 public:
  // This process's replicas: one on `device` talking through `communicator`, or (given
  // `threads`) those threads' replicas, the first on `device` talking through `communicator`.
  struct Placement {
    Device device;
    std::shared_ptr<distributed::Communicator> communicator;
    std::shared_ptr<ReplicaThreads> threads;
  };
  virtual ~Strategy() = default;
  virtual std::string class_name() const = 0;  // "MirroredStrategy"

  // This process's (first) replica: its rank, and its device.
  int replica_id() const { return communicator_->rank(); }
  int num_replicas_in_sync() const { return communicator_->size(); }
  const Device& device() const { return device_; }
  // Rank 0 alone prints progress and writes checkpoints, logs and run directories.
  bool is_chief() const { return replica_id() == 0; }
  distributed::Communicator& communicator() const { return *communicator_; }
  const std::shared_ptr<distributed::Communicator>& shared_communicator() const {
    return communicator_;
  }
  // The threads of the replicas this process runs, where it runs several (MirroredStrategy over
  // several devices); null where the process is one replica.
  ReplicaThreads* replica_threads() const { return threads_.get(); }
  // How long a collective may wait for the other replicas before they all fail.
  void set_timeout(std::chrono::milliseconds timeout);

  // Gradients go to the all-reduce in buckets of about this many bytes (at least one gradient
  // each), in the order backprop produces them.
  int64_t bucket_bytes() const { return bucket_bytes_; }
  void set_bucket_bytes(int64_t bytes);
  // Whether each bucket's all-reduce starts as soon as its gradients exist (true) or after the
  // whole backward pass (false: for measuring what the overlap gains).
  bool overlap() const { return overlap_; }
  void set_overlap(bool overlap) { overlap_ = overlap; }

 protected:
  explicit Strategy(Placement placement);

 private:
  Device device_;
  std::shared_ptr<distributed::Communicator> communicator_;
  std::shared_ptr<ReplicaThreads> threads_;
  int64_t bucket_bytes_ = kDefaultBucketBytes;
  bool overlap_ = true;
};

using StrategyPtr = std::shared_ptr<Strategy>;

// One replica on one device ("cpu", "cuda:0"); no communication.
class OneDeviceStrategy final : public Strategy {
 public:
  explicit OneDeviceStrategy(const std::string& device);
  std::string class_name() const override { return "OneDeviceStrategy"; }
};

// One replica per local device ("cuda:0", "cuda:1"; "cpu" may repeat, a GPU may not), all in this
// process, as in TensorFlow: replica i is a thread computing on devices[i] with its copy of every
// variable of the model, the optimizer and the metrics (training/distribute/replica_threads.h).
// GPUs talk over NCCL (a communicator each); replicas with the CPU meet in host memory. One
// device: that device alone. Across processes or machines, use MultiWorkerMirroredStrategy.
class MirroredStrategy final : public Strategy {
 public:
  // No devices: every visible GPU, else the CPU.
  explicit MirroredStrategy(const std::vector<std::string>& devices = {});
  std::string class_name() const override { return "MirroredStrategy"; }
};

// One process per replica, on any number of machines, started by mpirun (or kiln train --nproc
// N): the ranks of MPI_COMM_WORLD, talking over MPI, or over NCCL for GPU replicas. A process's
// device is devices[local rank % size] ("cpu": every rank on the CPU; no devices: the local rank's
// GPU where there are GPUs, else the CPU). Made in a process mpirun did not start, it is one
// replica. The ranks' random generators take rank 0's state, so every rank builds the same model
// and shuffles its data the same way.
class MultiWorkerMirroredStrategy final : public Strategy {
 public:
  explicit MultiWorkerMirroredStrategy(const std::vector<std::string>& devices = {});
  std::string class_name() const override { return "MultiWorkerMirroredStrategy"; }

 private:
  MultiWorkerMirroredStrategy(const std::vector<std::string>& devices,
                              const std::shared_ptr<distributed::Communicator>& communicator);
};

// Keras's `with strategy.scope():` — models built and compiled inside train under `strategy`,
// their variables made on its device. Scopes nest; a scope is per thread.
class StrategyScope {
 public:
  explicit StrategyScope(StrategyPtr strategy);
  ~StrategyScope();
  StrategyScope(const StrategyScope&) = delete;
  StrategyScope& operator=(const StrategyScope&) = delete;

 private:
  StrategyPtr previous_;
  DeviceScope device_;
};

// The innermost StrategyScope's strategy on this thread, or null.
StrategyPtr current_strategy();

// A strategy from its YAML / Keras name: "default" or "one_device" (one replica on devices[0] or
// the automatic choice), "mirrored", "multi_worker" (also the Keras class names).
StrategyPtr make_strategy(const std::string& name, const std::vector<std::string>& devices);

}  // namespace kiln::distribute
