// The NCCL communicator (framework/distributed/nccl.h). A collective on CUDA tensors is queued on
// the communicator's stream behind an event of the compute stream; its ticket is an event on the
// communicator's stream that wait() makes the compute stream wait for. The tensors it reads and
// writes are recorded with the caching allocator, so memory freed before the collective finished
// (a tensor dropped on an error path, all_gather's input) is not handed to other work meanwhile.
//
// Nothing blocks the host without a bound. The communicators are nonblocking: NCCL's own threads
// make them and queue their calls, which return ncclInProgress until then, and kiln polls their
// state for at most the timeout. A rank that died or never started thus ends the making of a
// communicator with an error instead of a hang. A watchdog thread bounds the rest: a collective
// unfinished after the timeout, or an NCCL error reported asynchronously, aborts the communicator
// and ends the process naming it.
#include <nccl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/record_stream.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/nccl.h"
#include "kiln/framework/distributed/poll_until.h"

namespace kiln::distributed {
namespace {

using Clock = std::chrono::steady_clock;

#define KILN_NCCL_CHECK(call)                                                                     \
  do {                                                                                            \
    const ncclResult_t kiln_nccl_status_ = (call);                                                \
    KILN_CHECK(kiln_nccl_status_ == ncclSuccess, #call,                                           \
               " failed: ", ncclGetErrorString(kiln_nccl_status_), " (", __FILE__, ":", __LINE__, \
               ")");                                                                              \
  } while (0)

double seconds(std::chrono::milliseconds duration) {
  return static_cast<double>(duration.count()) / 1000.0;
}

bool failed(ncclResult_t status) {
  return status != ncclSuccess && status != ncclInProgress;
}

// Where `comm` stands: ncclInProgress while NCCL's threads finish a call of a nonblocking
// communicator (making it, queuing a collective, finalizing it), then how that call ended; an
// error NCCL met later in the communicator's work.
ncclResult_t async_state(ncclComm_t comm) {
  ncclResult_t state = ncclSuccess;
  const ncclResult_t query = ncclCommGetAsyncError(comm, &state);
  return query == ncclSuccess ? state : query;
}

// How a call on `comm` that returned `status` ended, waiting for it until `deadline`; nullopt
// when it was still in progress then.
std::optional<ncclResult_t> settle(ncclComm_t comm, ncclResult_t status,
                                   Clock::time_point deadline) {
  if (status != ncclInProgress) return status;
  return poll_until(deadline, ncclInProgress, [comm] { return async_state(comm); });
}

// kiln's communicators do not block: each call returns at once, perhaps ncclInProgress, and kiln
// waits for it with a bound.
ncclConfig_t nonblocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

// A communicator NCCL is making, rank `rank` of `size` on GPU `device`: `started` is what the call
// that started it returned, ncclInProgress (or ncclSuccess) unless it failed at once.
struct Joining {
  ncclComm_t comm = nullptr;
  ncclResult_t started = ncclSuccess;
  int rank = 0;
  int size = 0;
  int device = 0;
};

// Waits until NCCL has made every communicator of `joining`, at most `timeout`. When one fails,
// or time runs out first, every one is aborted and the error names the first rank not made.
void finish_joining(std::span<const Joining> joining, std::chrono::milliseconds timeout) {
  size_t first_unmade = 0;
  // An error as soon as one has failed, else ncclInProgress while one is still being made.
  const auto state = [&] {
    ncclResult_t all = ncclSuccess;
    for (size_t i = 0; i < joining.size(); ++i) {
      const Joining& j = joining[i];
      const ncclResult_t one = failed(j.started) ? j.started : async_state(j.comm);
      if (one == ncclSuccess || (one == ncclInProgress && all == ncclInProgress)) continue;
      first_unmade = i;
      if (failed(one)) return one;
      all = ncclInProgress;
    }
    return all;
  };
  const std::optional<ncclResult_t> outcome =
      poll_until(Clock::now() + timeout, ncclInProgress, state);
  if (outcome == ncclSuccess) return;
  // Aborting one still being made also stops its threads' wait for the other ranks.
  for (const Joining& j : joining) ncclCommAbort(j.comm);
  const Joining& j = joining[first_unmade];
  const std::string which = detail::concat("NCCL's initialisation of rank ", j.rank, " of ", j.size,
                                           " on cuda:", j.device);
  if (!outcome)
    throw Error(detail::concat(which, " did not finish within ", seconds(timeout),
                               " s: another rank died or did not start"));
  throw Error(detail::concat(which, " failed: ", ncclGetErrorString(*outcome), " (",
                             ncclGetLastError(nullptr), ")"));
}

ncclDataType_t nccl_type(DType dtype, const std::string& what) {
  switch (dtype) {
    case DType::f32:
      return ncclFloat32;
    case DType::f64:
      return ncclFloat64;
    case DType::f16:
      return ncclFloat16;
    case DType::bf16:
      return ncclBfloat16;
    case DType::i32:
      return ncclInt32;
    case DType::i64:
      return ncclInt64;
    case DType::u8:
    case DType::boolean:
      return ncclUint8;
    case DType::string:
      break;
  }
  throw Error(detail::concat(what, ": NCCL has no ", dtype_name(dtype), " type"));
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return ncclSum;
    case ReduceOp::mean:
      return ncclAvg;
    case ReduceOp::max:
      return ncclMax;
  }
  return ncclSum;
}

class NcclCommunicator final : public Communicator {
 public:
  // `comm`: the bootstrap's rank of an NCCL communicator on GPU `device`; `in_group`: one of
  // the communicators nccl_group made at once for this process's GPUs.
  NcclCommunicator(std::shared_ptr<Communicator> bootstrap, int device, ncclComm_t comm,
                   bool in_group)
      : bootstrap_(std::move(bootstrap)), device_(device), comm_(comm), in_group_(in_group) {
    const cuda::DeviceGuard guard(device_);
    KILN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    watchdog_ = std::thread([this] { watch(); });
  }

  // The bootstrap's rank of a new NCCL communicator of all its ranks, on GPU `device`: rank 0's
  // unique id goes to every rank through the bootstrap, and the ranks must all join within the
  // bootstrap's timeout.
  static ncclComm_t init_rank(Communicator& bootstrap, int device) {
    const cuda::DeviceGuard guard(device);
    ncclUniqueId id{};
    if (bootstrap.rank() == 0) KILN_NCCL_CHECK(ncclGetUniqueId(&id));
    const Tensor bytes = Tensor::empty({static_cast<int64_t>(sizeof id)}, DType::u8, Device::cpu());
    std::memcpy(bytes.raw_data(), &id, sizeof id);
    bootstrap.broadcast(bytes, 0, "NCCL's unique id");
    std::memcpy(&id, bytes.raw_data(), sizeof id);
    ncclConfig_t config = nonblocking_config();
    Joining joining{nullptr, ncclSuccess, bootstrap.rank(), bootstrap.size(), device};
    joining.started =
        ncclCommInitRankConfig(&joining.comm, joining.size, id, joining.rank, &config);
    finish_joining({&joining, 1}, bootstrap.timeout());
    return joining.comm;
  }

  ~NcclCommunicator() override { shutdown(); }

  // Once, before CUDA and MPI end (nccl_world registers it at exit): the collectives still
  // queued finish (or, past the timeout, the communicator is aborted), the watchdog stops and
  // NCCL lets go of the communicator.
  void shutdown() {
    {
      std::unique_lock lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    wake_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    const Clock::time_point deadline = Clock::now() + timeout();
    const std::lock_guard lock(mutex_);
    bool finished = true;
    for (auto& [ticket, p] : tickets_) {
      if (p.done == nullptr) continue;
      const cudaEvent_t done = p.done;
      const bool completed = poll_until(deadline, cudaErrorNotReady,
                                        [done] { return cudaEventQuery(done); }) == cudaSuccess;
      finished = finished && completed;
      cudaEventDestroy(p.done);
    }
    tickets_.clear();
    if (aborted_) {
      // ncclCommAbort freed it.
    } else if (!finished) {
      ncclCommAbort(comm_);
    } else if (in_group_) {
      // Finalizing completes once the other ranks have finalized too, which this thread does
      // only after: one process's communicators are destroyed one by one, as NCCL's
      // single-thread example does.
      ncclCommDestroy(comm_);
    } else {
      // Finalizing waits, in NCCL's thread, for the other ranks to finish with this one.
      if (settle(comm_, ncclCommFinalize(comm_), Clock::now() + timeout()) == ncclSuccess)
        ncclCommDestroy(comm_);
      else
        ncclCommAbort(comm_);
    }
    cudaStreamDestroy(stream_);
  }

  void set_timeout(std::chrono::milliseconds timeout) override {
    Communicator::set_timeout(timeout);
    bootstrap_->set_timeout(timeout);
  }

  int rank() const override { return bootstrap_->rank(); }
  int size() const override { return bootstrap_->size(); }
  std::string_view backend() const override { return "nccl"; }
  bool takes(const Device& device) const override {
    return device.is_cpu() || (device.is_cuda() && device.index == device_);
  }

  Ticket start_all_reduce(const Tensor& t, ReduceOp op, std::string what) override {
    if (t.device().is_cpu()) return host(bootstrap_->start_all_reduce(t, op, std::move(what)));
    const ncclDataType_t type = nccl_type(t.dtype(), what);
    return enqueue(std::move(what), {t}, [&] {
      return ncclAllReduce(t.raw_data(), t.raw_data(), static_cast<size_t>(t.numel()), type,
                           nccl_op(op), comm_, stream_);
    });
  }

  void wait(Ticket ticket) override {
    Ticket host_ticket = 0;
    {
      const std::lock_guard lock(mutex_);
      const auto it = tickets_.find(ticket);
      KILN_CHECK(it != tickets_.end(), "NCCL: wait on an unknown collective");
      Pending& p = it->second;
      if (p.done != nullptr) {
        // Stream-ordered: later kernels on the compute stream see the reduced values. Under the
        // lock: the watchdog destroys the event once it has completed and been waited for.
        KILN_CUDA_CHECK(cudaStreamWaitEvent(cuda::current_stream(device_), p.done, 0));
        p.waited = true;
        return;
      }
      host_ticket = p.host_ticket;
      tickets_.erase(it);
    }
    bootstrap_->wait(host_ticket);
  }

  void broadcast(const Tensor& t, int root, std::string what) override {
    if (t.device().is_cpu()) return bootstrap_->broadcast(t, root, std::move(what));
    wait_on_host(enqueue(std::move(what), {t}, [&] {
      return ncclBroadcast(t.raw_data(), t.raw_data(), t.nbytes(), ncclUint8, root, comm_, stream_);
    }));
  }

  Tensor all_gather(const Tensor& t, std::string what) override {
    if (t.device().is_cpu()) return bootstrap_->all_gather(t, std::move(what));
    std::vector<int64_t> dims{size()};
    for (const int64_t d : t.shape().dims()) dims.push_back(d);
    const Tensor out = Tensor::empty(Shape(dims), t.dtype(), t.device());
    wait_on_host(enqueue(std::move(what), {t, out}, [&] {
      return ncclAllGather(t.raw_data(), out.raw_data(), t.nbytes(), ncclUint8, comm_, stream_);
    }));
    return out;
  }

  void barrier(std::string what) override { bootstrap_->barrier(std::move(what)); }

  // The bootstrap's abort ends the process (MPI) or throws to this replica's thread (replicas
  // that are threads of one process).
  [[noreturn]] void abort(const std::string& reason) override {
    {
      // Under the lock, as the watchdog queries comm_ under it until it sees aborted_: a thread
      // giving up on a collective (queued) aborts beside it.
      const std::lock_guard lock(mutex_);
      if (!aborted_.exchange(true)) ncclCommAbort(comm_);
    }
    bootstrap_->abort(reason);
    _exit(1);  // not reached
  }

 private:
  struct Pending {
    cudaEvent_t done = nullptr;  // null: a host collective of the bootstrap's
    Ticket host_ticket = 0;
    std::string what;
    Clock::time_point issued;
    bool waited = false;  // the compute stream waits for `done`
  };

  // Queues `issue` (an NCCL call on stream_, returning its status) behind the work queued so far
  // on the compute stream; `buffers`, the device tensors it reads or writes, keep their memory
  // until it has finished.
  template <typename F>
  Ticket enqueue(std::string what, std::initializer_list<Tensor> buffers, F&& issue) {
    const cuda::DeviceGuard guard(device_);
    cudaEvent_t ready = nullptr;
    KILN_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    KILN_CUDA_CHECK(cudaEventRecord(ready, cuda::current_stream(device_)));
    KILN_CUDA_CHECK(cudaStreamWaitEvent(stream_, ready, 0));
    KILN_CUDA_CHECK(cudaEventDestroy(ready));
    queued(issue(), what);
    for (const Tensor& t : buffers) cuda::record_stream(t, stream_);
    cudaEvent_t done = nullptr;
    KILN_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    KILN_CUDA_CHECK(cudaEventRecord(done, stream_));
    const std::lock_guard lock(mutex_);
    const Ticket ticket = ++issued_;
    tickets_[ticket] = {done, 0, std::move(what), Clock::now(), false};
    return ticket;
  }

  // Returns once the call that returned `status` is on stream_: NCCL's thread may still be
  // queuing it (connecting to the other ranks, the first time), and work recorded on the stream
  // before then would run ahead of it. A failed call throws; one still not queued after the
  // timeout aborts, as a rank died or stalled.
  void queued(ncclResult_t status, const std::string& what) {
    const std::optional<ncclResult_t> outcome = settle(comm_, status, Clock::now() + timeout());
    if (!outcome)
      abort(detail::concat("NCCL did not queue ", what, " within ", seconds(timeout()),
                           " s: another rank died or stalled"));
    KILN_CHECK(*outcome == ncclSuccess, "NCCL: ", what, " failed: ", ncclGetErrorString(*outcome),
               " (", ncclGetLastError(comm_), ")");
  }

  Ticket host(Ticket host_ticket) {
    const std::lock_guard lock(mutex_);
    const Ticket ticket = ++issued_;
    tickets_[ticket] = {nullptr, host_ticket, "", Clock::now(), false};
    return ticket;
  }

  void wait_on_host(Ticket ticket) {
    wait(ticket);
    KILN_CUDA_CHECK(cudaStreamSynchronize(cuda::current_stream(device_)));
  }

  // From the watchdog, which has no caller to throw to: the process ends.
  [[noreturn]] void fail(const std::string& reason) {
    try {
      abort(reason);
    } catch (const Error& e) {
      std::fprintf(stderr, "kiln: aborting: %s\n", e.what());
      std::fflush(stderr);
      _exit(1);
    }
  }

  // Every 100 ms: finished collectives that were waited for are forgotten; one unfinished past
  // the timeout, or an error NCCL reports, ends the process. A call NCCL's thread is still
  // finishing (ncclInProgress) is no error: queued() bounds its wait.
  void watch() {
    // Its CUDA calls go to this rank's GPU (not a context on GPU 0).
    cudaSetDevice(device_);
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(100),
                           [&] { return stopping_ || aborted_; })) {
      const ncclResult_t async = async_state(comm_);
      if (failed(async)) {
        lock.unlock();
        fail(detail::concat("NCCL failed: ", ncclGetErrorString(async)));
      }
      for (auto it = tickets_.begin(); it != tickets_.end();) {
        Pending& p = it->second;
        if (p.done == nullptr) {
          ++it;
          continue;
        }
        if (cudaEventQuery(p.done) == cudaSuccess) {
          if (p.waited) {
            cudaEventDestroy(p.done);
            it = tickets_.erase(it);
          } else {
            ++it;
          }
          continue;
        }
        if (Clock::now() - p.issued > timeout()) {
          const std::string what = p.what;
          lock.unlock();
          fail(detail::concat(what, " did not finish within ", seconds(timeout()),
                              " s: another rank died or stalled"));
        }
        ++it;
      }
    }
  }

  std::shared_ptr<Communicator> bootstrap_;
  int device_;
  ncclComm_t comm_ = nullptr;
  bool in_group_ = false;
  std::atomic<bool> aborted_{false};  // comm_ is gone
  cudaStream_t stream_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<Ticket, Pending> tickets_;
  Ticket issued_ = 0;
  bool stopping_ = false;
  std::thread watchdog_;
};

// The communicators made, shut down at exit: registered after CUDA and MPI started, the handler
// runs before they end, whenever the communicators themselves are destroyed.
std::vector<std::weak_ptr<NcclCommunicator>>& made() {
  static std::vector<std::weak_ptr<NcclCommunicator>>* const communicators = [] {
    std::atexit([] {
      for (const std::weak_ptr<NcclCommunicator>& c : made())
        if (const std::shared_ptr<NcclCommunicator> alive = c.lock()) alive->shutdown();
    });
    return new std::vector<std::weak_ptr<NcclCommunicator>>();
  }();
  return *communicators;
}

}  // namespace

std::shared_ptr<Communicator> nccl_world(std::shared_ptr<Communicator> bootstrap, int device) {
  ncclComm_t comm = NcclCommunicator::init_rank(*bootstrap, device);
  auto communicator = std::make_shared<NcclCommunicator>(std::move(bootstrap), device, comm, false);
  made().push_back(communicator);
  return communicator;
}

std::vector<std::shared_ptr<Communicator>> nccl_group(
    const std::vector<std::shared_ptr<Communicator>>& bootstraps, const std::vector<int>& devices) {
  KILN_CHECK(bootstraps.size() == devices.size(), "NCCL: ", devices.size(), " GPUs but ",
             bootstraps.size(), " host ranks");
  KILN_CHECK(!devices.empty(), "NCCL: a group of no GPUs");
  // One thread makes all the ranks, so their inits are one group: NCCL starts them together at
  // ncclGroupEnd, each rank's on its GPU, connected by one unique id.
  ncclUniqueId id{};
  KILN_NCCL_CHECK(ncclGetUniqueId(&id));
  ncclConfig_t config = nonblocking_config();
  std::vector<Joining> joining(devices.size());
  KILN_NCCL_CHECK(ncclGroupStart());
  for (size_t i = 0; i < devices.size(); ++i) {
    Joining& j = joining[i];
    j = {nullptr, ncclSuccess, static_cast<int>(i), static_cast<int>(devices.size()), devices[i]};
    const cuda::DeviceGuard guard(j.device);
    j.started = ncclCommInitRankConfig(&j.comm, j.size, id, j.rank, &config);
  }
  const ncclResult_t ended = ncclGroupEnd();
  for (Joining& j : joining)
    if (!failed(j.started)) j.started = ended;
  finish_joining(joining, bootstraps.front()->timeout());
  std::vector<std::shared_ptr<Communicator>> group;
  for (size_t i = 0; i < devices.size(); ++i) {
    auto communicator =
        std::make_shared<NcclCommunicator>(bootstraps[i], devices[i], joining[i].comm, true);
    made().push_back(communicator);
    group.push_back(std::move(communicator));
  }
  return group;
}

}  // namespace kiln::distributed
