#pragma once
// Keras's tf.distribute strategies: where the replicas of a model train and how they agree.
// Data parallelism is one process per replica (SPMD): every process builds the same model, takes
// its shard of each global batch, and the traced train step sums the gradients over the ranks
// (gradient buckets, overlapped with backward) before the optimizer runs, so the replicas stay
// equal and train as one device would on the whole batch.
//
//   auto strategy = std::make_shared<distribute::MultiWorkerMirroredStrategy>();
//   {
//     const distribute::StrategyScope scope(strategy);
//     model = build_model();
//     model->compile({...});
//   }
//   model->fit(x, y, {.batch_size = 128});  // the global batch; each of N ranks takes 128 / N
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/core/device.h"
#include "kiln/framework/distributed/communicator.h"

namespace kiln::distribute {

// About PyTorch DDP's and Keras's default bucket: large enough that each all-reduce runs near
// the link's bandwidth, small enough that the first starts long before backward ends.
inline constexpr int64_t kDefaultBucketBytes = int64_t{25} << 20;

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string class_name() const = 0;  // "MirroredStrategy"

  // This process's replica: its rank, and its device.
  int replica_id() const { return communicator_->rank(); }
  int num_replicas_in_sync() const { return communicator_->size(); }
  const Device& device() const { return device_; }
  // Rank 0 alone prints progress and writes checkpoints, logs and run directories.
  bool is_chief() const { return replica_id() == 0; }
  distributed::Communicator& communicator() const { return *communicator_; }
  const std::shared_ptr<distributed::Communicator>& shared_communicator() const {
    return communicator_;
  }

  // Gradients go to the all-reduce in buckets of about this many bytes (at least one gradient
  // each), in the order backprop produces them.
  int64_t bucket_bytes() const { return bucket_bytes_; }
  void set_bucket_bytes(int64_t bytes);
  // Whether each bucket's all-reduce starts as soon as its gradients exist (true) or after the
  // whole backward pass (false: for measuring what the overlap gains).
  bool overlap() const { return overlap_; }
  void set_overlap(bool overlap) { overlap_ = overlap; }

 protected:
  Strategy(Device device, std::shared_ptr<distributed::Communicator> communicator);

 private:
  Device device_;
  std::shared_ptr<distributed::Communicator> communicator_;
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

// One replica per local device ("cuda:0", "cuda:1"; "cpu" may repeat). Each replica is a process
// of its own holding its copy of the variables, as PyTorch's DistributedDataParallel, rather
// than a thread of one process as in TensorFlow: `kiln train` starts one process per device
// under mpirun itself, and a C++ program runs under `mpirun -np <devices>` on one machine
// (made outside mpirun with several devices, the strategy says so). Replica i is rank i, on
// devices[i], talking over NCCL for GPUs (MPI for host tensors). One device: that device alone.
class MirroredStrategy final : public Strategy {
 public:
  // No devices: every visible GPU, else the CPU.
  explicit MirroredStrategy(const std::vector<std::string>& devices = {});
  std::string class_name() const override { return "MirroredStrategy"; }

 private:
  MirroredStrategy(const std::vector<std::string>& devices,
                   const std::shared_ptr<distributed::Communicator>& bootstrap);
};

// How many processes the strategy named `name` (as make_strategy takes it) trains as on this
// machine: MirroredStrategy one per device (none named: one per visible GPU, at least one), the
// others 1 (a multi-worker run's processes are mpirun's to choose).
int local_processes(const std::string& name, const std::vector<std::string>& devices);

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
