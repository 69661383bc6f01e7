#include "kiln/training/distribute/replica_threads.h"

#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/framework/distributed/thread_group.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln::distribute {

ReplicaThreads::ReplicaThreads(std::vector<Device> devices,
                               std::vector<std::shared_ptr<distributed::Communicator>> ranks,
                               std::vector<std::shared_ptr<distributed::Communicator>> host_ranks)
    : devices_(std::move(devices)), ranks_(std::move(ranks)), host_ranks_(std::move(host_ranks)) {
  KILN_CHECK(!devices_.empty() && ranks_.size() == devices_.size() &&
                 host_ranks_.size() == devices_.size(),
             "ReplicaThreads: ", devices_.size(), " devices, ", ranks_.size(), " ranks and ",
             host_ranks_.size(), " host ranks");
  try {
    for (int r = 1; r < size(); ++r) threads_.emplace_back([this, r] { serve(r); });
  } catch (...) {
    stop();
    throw;
  }
}

ReplicaThreads::~ReplicaThreads() {
  stop();
}

void ReplicaThreads::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ReplicaThreads::run(const std::function<void(int)>& fn) {
  const int caller_threads = cpu_threads();
  {
    const std::lock_guard lock(mutex_);
    job_ = &fn;
    ++generation_;
    unfinished_ = size();
    failure_ = nullptr;
    grad_enabled_ = grad_enabled();
    cpu_threads_ = std::max(1, caller_threads / size());
  }
  changed_.notify_all();
  set_cpu_threads(cpu_threads_);
  run_replica(0, fn);
  set_cpu_threads(caller_threads);
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return unfinished_ == 0; });
  job_ = nullptr;
  if (!failure_) return;
  // Every replica is back: the next run starts with no collective pending or aborted.
  distributed::restart(host_ranks_);
  std::rethrow_exception(failure_);
}

void ReplicaThreads::serve(int replica) {
  uint64_t done = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || generation_ != done; });
      if (generation_ == done) return;  // stopping, with no job left
      done = generation_;
      job = job_;
      set_grad_enabled(grad_enabled_);
      set_cpu_threads(cpu_threads_);
    }
    run_replica(replica, *job);
  }
}

void ReplicaThreads::run_replica(int replica, const std::function<void(int)>& fn) noexcept {
  try {
    const DeviceScope on_device(device(replica));
    const distributed::WorldScope world(rank(replica));
    const MirrorScope mirror(replica);
    const distributed::ReplicaScope context({replica, size()});
    fn(replica);
  } catch (...) {
    {
      const std::lock_guard lock(mutex_);
      // The first failure is the cause; the others' are its consequences.
      if (!failure_) failure_ = std::current_exception();
    }
    try {
      host_ranks_[static_cast<size_t>(replica)]->abort("failed: the others stop with it");
    } catch (...) {  // NOLINT(bugprone-empty-catch): the abort's own error is the one kept
    }
  }
  {
    const std::lock_guard lock(mutex_);
    --unfinished_;
  }
  changed_.notify_all();
}

}  // namespace kiln::distribute
