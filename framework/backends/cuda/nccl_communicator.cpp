// The NCCL communicator (framework/distributed/nccl.h). A collective on CUDA tensors is queued on
// the communicator's stream behind an event of the compute stream; its ticket is an event on the
// communicator's stream that wait() makes the compute stream wait for. Nothing blocks the host,
// so a watchdog thread bounds failures: a collective unfinished after the timeout, or an NCCL
// error reported asynchronously, aborts the communicator and ends the process naming it.
#include <nccl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/nccl.h"

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
  // the communicators ncclCommInitAll made for this process's GPUs.
  NcclCommunicator(std::shared_ptr<Communicator> bootstrap, int device, ncclComm_t comm,
                   bool in_group)
      : bootstrap_(std::move(bootstrap)), device_(device), comm_(comm), in_group_(in_group) {
    const cuda::DeviceGuard guard(device_);
    KILN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    watchdog_ = std::thread([this] { watch(); });
  }

  // The bootstrap's rank of a new NCCL communicator of all its ranks, on GPU `device`: rank 0's
  // unique id goes to every rank through the bootstrap.
  static ncclComm_t init_rank(Communicator& bootstrap, int device) {
    const cuda::DeviceGuard guard(device);
    ncclUniqueId id{};
    if (bootstrap.rank() == 0) KILN_NCCL_CHECK(ncclGetUniqueId(&id));
    const Tensor bytes = Tensor::empty({static_cast<int64_t>(sizeof id)}, DType::u8, Device::cpu());
    std::memcpy(bytes.raw_data(), &id, sizeof id);
    bootstrap.broadcast(bytes, 0, "NCCL's unique id");
    std::memcpy(&id, bytes.raw_data(), sizeof id);
    ncclComm_t comm = nullptr;
    KILN_NCCL_CHECK(ncclCommInitRank(&comm, bootstrap.size(), id, bootstrap.rank()));
    return comm;
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
      while (cudaEventQuery(p.done) == cudaErrorNotReady && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      finished = finished && cudaEventQuery(p.done) == cudaSuccess;
      cudaEventDestroy(p.done);
    }
    tickets_.clear();
    if (aborted_) {
      // ncclCommAbort freed it.
    } else if (!finished) {
      ncclCommAbort(comm_);
    } else if (in_group_) {
      // Finalizing waits for the other ranks, which this thread would finalize only after: one
      // process's communicators are destroyed one by one, as NCCL's single-thread example does.
      ncclCommDestroy(comm_);
    } else {
      ncclCommFinalize(comm_);
      ncclCommDestroy(comm_);
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
    return enqueue(std::move(what), [&] {
      KILN_NCCL_CHECK(ncclAllReduce(t.raw_data(), t.raw_data(), static_cast<size_t>(t.numel()),
                                    type, nccl_op(op), comm_, stream_));
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
    wait_on_host(enqueue(std::move(what), [&] {
      KILN_NCCL_CHECK(
          ncclBroadcast(t.raw_data(), t.raw_data(), t.nbytes(), ncclUint8, root, comm_, stream_));
    }));
  }

  Tensor all_gather(const Tensor& t, std::string what) override {
    if (t.device().is_cpu()) return bootstrap_->all_gather(t, std::move(what));
    std::vector<int64_t> dims{size()};
    for (const int64_t d : t.shape().dims()) dims.push_back(d);
    const Tensor out = Tensor::empty(Shape(dims), t.dtype(), t.device());
    wait_on_host(enqueue(std::move(what), [&] {
      KILN_NCCL_CHECK(
          ncclAllGather(t.raw_data(), out.raw_data(), t.nbytes(), ncclUint8, comm_, stream_));
    }));
    return out;
  }

  void barrier(std::string what) override { bootstrap_->barrier(std::move(what)); }

  // The bootstrap's abort ends the process (MPI) or throws to this replica's thread (replicas
  // that are threads of one process).
  [[noreturn]] void abort(const std::string& reason) override {
    if (!aborted_.exchange(true)) ncclCommAbort(comm_);
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

  // Queues `issue` (NCCL calls on stream_) behind the work queued so far on the compute stream.
  template <typename F>
  Ticket enqueue(std::string what, F&& issue) {
    const cuda::DeviceGuard guard(device_);
    cudaEvent_t ready = nullptr;
    cudaEvent_t done = nullptr;
    KILN_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    KILN_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    KILN_CUDA_CHECK(cudaEventRecord(ready, cuda::current_stream(device_)));
    KILN_CUDA_CHECK(cudaStreamWaitEvent(stream_, ready, 0));
    KILN_CUDA_CHECK(cudaEventDestroy(ready));
    issue();
    KILN_CUDA_CHECK(cudaEventRecord(done, stream_));
    const std::lock_guard lock(mutex_);
    const Ticket ticket = ++issued_;
    tickets_[ticket] = {done, 0, std::move(what), Clock::now(), false};
    return ticket;
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
  // the timeout, or an error NCCL reports, ends the process.
  void watch() {
    // Its CUDA calls go to this rank's GPU (not a context on GPU 0).
    cudaSetDevice(device_);
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(100),
                           [&] { return stopping_ || aborted_; })) {
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
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
          fail(detail::concat(what, " did not finish within ", timeout().count() / 1000.0,
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
  std::vector<ncclComm_t> comms(devices.size());
  KILN_NCCL_CHECK(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  std::vector<std::shared_ptr<Communicator>> group;
  for (size_t i = 0; i < devices.size(); ++i) {
    auto communicator =
        std::make_shared<NcclCommunicator>(bootstraps[i], devices[i], comms[i], true);
    made().push_back(communicator);
    group.push_back(std::move(communicator));
  }
  return group;
}

}  // namespace kiln::distributed
