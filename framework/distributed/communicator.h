#pragma once
// A group of processes (ranks) that exchange tensors: the data-parallel engine's only view of the
// transport. Implementations: a single process (LocalCommunicator, every collective the identity),
// MPI for host tensors (mpi_communicator.h). Collectives are matched by order: every rank issues
// the same collectives in the same order, as the traced steps (one graph on every rank) do.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "kiln/framework/distributed/reduce_op.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::distributed {

// A collective issued but perhaps not finished; wait() completes it.
using Ticket = uint64_t;

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string_view backend() const = 0;  // "local", "mpi", "nccl"
  // Whether the collectives take tensors on `device` as they are (the host always); others go
  // through a host copy.
  virtual bool takes(const Device& device) const { return device.is_cpu(); }

  // Starts reducing `t` (contiguous, on a device the communicator takes) in place across the
  // ranks; `what` names it in errors
  // ("all_reduce of gradient bucket 2"). The storage must stay untouched until wait().
  virtual Ticket start_all_reduce(const Tensor& t, ReduceOp op, std::string what) = 0;
  // Returns once the collective is done on this rank; a collective that does not finish within
  // the timeout (a rank died or stalled) ends the process with an error naming it.
  virtual void wait(Ticket ticket) = 0;

  void all_reduce(const Tensor& t, ReduceOp op, std::string what) {
    wait(start_all_reduce(t, op, std::move(what)));
  }
  // `t` (host) takes rank `root`'s values on every rank.
  virtual void broadcast(const Tensor& t, int root, std::string what) = 0;
  // Every rank's `t` (all of one shape and dtype) stacked along a new leading axis, in rank order.
  virtual Tensor all_gather(const Tensor& t, std::string what) = 0;
  virtual void barrier(std::string what) = 0;
  // Ends every rank's process with `reason`; never returns.
  [[noreturn]] virtual void abort(const std::string& reason) = 0;

  // How long a collective may take before the ranks give up on each other.
  // Read by watchdog threads too.
  std::chrono::milliseconds timeout() const { return std::chrono::milliseconds(timeout_ms_); }
  virtual void set_timeout(std::chrono::milliseconds timeout) { timeout_ms_ = timeout.count(); }

 private:
  std::atomic<int64_t> timeout_ms_{60'000};
};

// One process alone: reductions and broadcasts leave tensors as they are.
class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string_view backend() const override { return "local"; }
  Ticket start_all_reduce(const Tensor&, ReduceOp, std::string) override { return 0; }
  void wait(Ticket) override {}
  void broadcast(const Tensor&, int, std::string) override {}
  Tensor all_gather(const Tensor& t, std::string what) override;
  void barrier(std::string) override {}
  [[noreturn]] void abort(const std::string& reason) override;
};

// The communicator the collective ops use: this thread's WorldScope's, else the one set_world
// installed, else a local one.
Communicator& world();
// Installs `communicator` for the process (a strategy does, when it is made); null restores the
// local one.
void set_world(std::shared_ptr<Communicator> communicator);

// While alive, world() is `communicator` on this thread: a replica's thread of MirroredStrategy,
// whose replicas are ranks of one process.
class WorldScope {
 public:
  explicit WorldScope(Communicator& communicator);
  ~WorldScope();
  WorldScope(const WorldScope&) = delete;
  WorldScope& operator=(const WorldScope&) = delete;

 private:
  Communicator* previous_;
};

}  // namespace kiln::distributed
