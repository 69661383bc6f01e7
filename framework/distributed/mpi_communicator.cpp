#include "kiln/framework/distributed/mpi_communicator.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "kiln/framework/core/error.h"

namespace kiln::distributed {
namespace {

MPI_Datatype mpi_type(DType dtype, const std::string& what) {
  switch (dtype) {
    case DType::f32:
      return MPI_FLOAT;
    case DType::f64:
      return MPI_DOUBLE;
    case DType::i32:
      return MPI_INT32_T;
    case DType::i64:
      return MPI_INT64_T;
    case DType::u8:
    case DType::boolean:
      return MPI_UINT8_T;
    default:
      throw Error(
          detail::concat(what, ": MPI has no ", dtype_name(dtype), " type; reduce it as float32"));
  }
}

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

// Divides a summed buffer by the number of ranks (ReduceOp::mean).
void divide(const Tensor& t, int ranks) {
  visit_dtype(t.dtype(), [&]<typename T>() {
    if constexpr (std::is_arithmetic_v<T>) {
      T* p = static_cast<T*>(t.raw_data());
      for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(p[i] / static_cast<T>(ranks));
    }
  });
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized == 0) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    }
    // Also when the program initialized MPI itself, perhaps at a lower level.
    int level = 0;
    MPI_Query_thread(&level);
    KILN_CHECK(level >= MPI_THREAD_SERIALIZED,
               "MPI does not allow calls from a worker thread (thread level ", level,
               "); initialize it with MPI_Init_thread(..., MPI_THREAD_SERIALIZED, ...)");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    worker_ = std::thread([this] { work(); });
  }

  // At exit, after the last collective: the worker stops, then MPI ends on the main thread.
  void finalize() {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    ready_.notify_all();
    // A collective still running at exit (its peers gone) would hold the join forever.
    const bool drained = done_.wait_for(lock, timeout(), [&] { return completed_ == issued_; });
    lock.unlock();
    if (!drained) abort("exiting with a collective unfinished after the timeout");
    if (worker_.joinable()) worker_.join();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view backend() const override { return "mpi"; }

  Ticket start_all_reduce(const Tensor& t, ReduceOp op, std::string what) override {
    check_host(t, what);
    const MPI_Datatype type = mpi_type(t.dtype(), what);
    void* data = t.raw_data();
    const auto count = static_cast<int>(t.numel());
    const int ranks = size_;
    return submit(what, [=, t = t]() {
      const MPI_Op mpi_op = op == ReduceOp::max ? MPI_MAX : MPI_SUM;
      const int rc = MPI_Allreduce(MPI_IN_PLACE, data, count, type, mpi_op, MPI_COMM_WORLD);
      if (rc == MPI_SUCCESS && op == ReduceOp::mean) divide(t, ranks);
      return rc;
    });
  }

  void wait(Ticket ticket) override {
    std::unique_lock lock(mutex_);
    const bool finished = done_.wait_for(lock, timeout(), [&] { return ticket <= completed_; });
    if (!finished) {
      const std::string what = pending_what_.at(ticket);
      lock.unlock();
      abort(detail::concat(what, " did not finish within ", timeout().count() / 1000.0,
                           " s: another rank died or stalled"));
    }
    const auto failed = failures_.find(ticket);
    if (failed != failures_.end()) {
      const std::string reason = failed->second;
      lock.unlock();
      abort(reason);
    }
    pending_what_.erase(ticket);
  }

  void broadcast(const Tensor& t, int root, std::string what) override {
    check_host(t, what);
    // Bytes: a copy needs no arithmetic, so every dtype (halves, bools) goes.
    void* data = t.raw_data();
    const auto bytes = static_cast<int>(t.nbytes());
    wait(submit(what, [=] { return MPI_Bcast(data, bytes, MPI_BYTE, root, MPI_COMM_WORLD); }));
  }

  Tensor all_gather(const Tensor& t, std::string what) override {
    check_host(t, what);
    std::vector<int64_t> dims{size_};
    for (const int64_t d : t.shape().dims()) dims.push_back(d);
    const Tensor out = Tensor::empty(Shape(dims), t.dtype(), Device::cpu());
    const void* in = t.raw_data();
    void* data = out.raw_data();
    const auto bytes = static_cast<int>(t.nbytes());
    wait(submit(what, [=] {
      return MPI_Allgather(in, bytes, MPI_BYTE, data, bytes, MPI_BYTE, MPI_COMM_WORLD);
    }));
    return out;
  }

  void barrier(std::string what) override {
    wait(submit(what, [] { return MPI_Barrier(MPI_COMM_WORLD); }));
  }

  [[noreturn]] void abort(const std::string& reason) override {
    std::fprintf(stderr, "kiln: rank %d of %d: %s\n", rank_, size_, reason.c_str());
    std::fflush(stderr);
    // Without MPI_Finalize: the launcher sees the rank fail and ends the others.
    _exit(1);
  }

 private:
  struct Job {
    Ticket ticket;
    std::function<int()> run;  // an MPI return code
  };

  void check_host(const Tensor& t, const std::string& what) const {
    KILN_CHECK(t.device().is_cpu(), what, ": the MPI communicator takes host tensors, got one on ",
               t.device());
    // MPI counts are ints.
    KILN_CHECK(t.nbytes() <= static_cast<size_t>(INT_MAX), what, ": ", t.nbytes(),
               " bytes is more than one MPI call moves (2 GiB)");
  }

  Ticket submit(const std::string& what, std::function<int()> run) {
    const std::lock_guard lock(mutex_);
    const Ticket ticket = ++issued_;
    pending_what_[ticket] = what;
    jobs_.push_back({ticket, std::move(run)});
    ready_.notify_one();
    return ticket;
  }

  void work() {
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      const int rc = job.run();
      {
        const std::lock_guard lock(mutex_);
        if (rc != MPI_SUCCESS)
          failures_[job.ticket] =
              detail::concat(pending_what_[job.ticket], " failed: ", mpi_error(rc));
        completed_ = job.ticket;
      }
      done_.notify_all();
    }
  }

  int rank_ = 0;
  int size_ = 1;
  std::mutex mutex_;
  std::condition_variable ready_;  // a job was queued, or the worker should stop
  std::condition_variable done_;   // a job finished
  std::deque<Job> jobs_;
  std::map<Ticket, std::string> pending_what_;
  std::map<Ticket, std::string> failures_;
  Ticket issued_ = 0;
  Ticket completed_ = 0;  // jobs finish in order, so every ticket up to this one is done
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  return 1;
}

int launched_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"})
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return 0;
}

std::shared_ptr<Communicator> mpi_world() {
  // Lives until the process ends: the atexit handler stops its worker and finalizes MPI on the
  // main thread, after the last collective, whatever the order of static destructors.
  static MpiCommunicator* const communicator = [] {
    auto* c = new MpiCommunicator();
    std::atexit([] { communicator->finalize(); });
    return c;
  }();
  return {std::shared_ptr<Communicator>(), communicator};
}

}  // namespace kiln::distributed
