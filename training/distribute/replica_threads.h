#pragma once
// MirroredStrategy's replicas as threads of one process, as TensorFlow runs them: run(fn) calls
// fn(i) for every replica i at once, replica 0 on the calling thread and each other on a thread of
// its own that lives as long as this object. Each call runs under its replica's scopes: its
// device, its rank of the replicas' communicators (distributed::world()), its copy of the
// mirrored variables, its ReplicaContext, and the caller's grad mode; the caller's CPU threads
// are shared out between the replicas.
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kiln/framework/core/device.h"
#include "kiln/framework/distributed/communicator.h"

namespace kiln::distribute {

class ReplicaThreads {
 public:
  // Replica i computes on devices[i] and talks through ranks[i]; a failed replica aborts
  // host_ranks[i] (a distributed::thread_group's) so that no other waits for it, and the group
  // starts afresh for the next run. (GPU replicas blocked in NCCL when another fails end the
  // process after the collective timeout, naming the collective.)
  ReplicaThreads(std::vector<Device> devices,
                 std::vector<std::shared_ptr<distributed::Communicator>> ranks,
                 std::vector<std::shared_ptr<distributed::Communicator>> host_ranks);
  ~ReplicaThreads();
  ReplicaThreads(const ReplicaThreads&) = delete;
  ReplicaThreads& operator=(const ReplicaThreads&) = delete;

  int size() const { return static_cast<int>(devices_.size()); }
  const Device& device(int replica) const { return devices_[static_cast<size_t>(replica)]; }
  distributed::Communicator& rank(int replica) const { return *shared_rank(replica); }
  const std::shared_ptr<distributed::Communicator>& shared_rank(int replica) const {
    return ranks_[static_cast<size_t>(replica)];
  }

  // Returns once every replica's fn returned; rethrows the first failure (the others then
  // failed for it).
  void run(const std::function<void(int)>& fn);

 private:
  // A replica's thread: runs each job it is given until the object goes.
  void serve(int replica);
  // Ends and joins the replicas' threads.
  void stop();
  // fn(replica) under the replica's scopes; a failure is kept and aborts the replica's rank.
  void run_replica(int replica, const std::function<void(int)>& fn) noexcept;

  std::vector<Device> devices_;
  std::vector<std::shared_ptr<distributed::Communicator>> ranks_;
  std::vector<std::shared_ptr<distributed::Communicator>> host_ranks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  const std::function<void(int)>* job_ = nullptr;
  uint64_t generation_ = 0;  // one per run
  int unfinished_ = 0;
  bool grad_enabled_ = true;  // the caller's, for the job's replicas
  int cpu_threads_ = 1;       // each replica's share of the caller's
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::vector<std::thread> threads_;
};

}  // namespace kiln::distribute
