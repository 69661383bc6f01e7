#include "kiln/framework/distributed/thread_group.h"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <type_traits>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln::distributed {
namespace {

using Clock = std::chrono::steady_clock;

// One collective of every rank.
struct Round {
  std::string what;
  std::vector<Tensor> tensors;  // each rank's (undefined for a barrier)
  std::vector<bool> joined;
  int count = 0;
  int released = 0;
  bool done = false;
  Tensor gathered;  // all_gather's result
};

// The combining of a round's tensors, once every rank joined.
using Combine = std::function<void(Round&)>;

struct Group {
  explicit Group(int n) : size(n) {}
  const int size;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<Ticket, Round> rounds;
  std::string aborted;  // why, once a rank aborted the group
  std::atomic<int64_t> timeout_ms{60'000};
};

// The ranks of `round` that have not joined it, as "1, 3".
std::string missing(const Round& round) {
  std::string out;
  for (size_t r = 0; r < round.joined.size(); ++r)
    if (!round.joined[r]) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

// Every rank's tensor combined by `op`, in rank order, into each of them.
void reduce(Round& round, ReduceOp op) {
  const std::vector<Tensor>& ts = round.tensors;
  const int64_t n = ts[0].numel();
  for (const Tensor& t : ts)
    KILN_CHECK(t.dtype() == ts[0].dtype() && t.numel() == n, round.what, ": the replicas reduce ",
               describe(ts[0].meta()), " and ", describe(t.meta()));
  const Tensor out = ts[0].clone();
  visit_dtype(out.dtype(), [&]<typename T>() {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      T* acc = static_cast<T*>(out.raw_data());
      for (size_t r = 1; r < ts.size(); ++r) {
        const T* in = static_cast<const T*>(ts[r].raw_data());
        for (int64_t i = 0; i < n; ++i)
          acc[i] = op == ReduceOp::max ? std::max(acc[i], in[i]) : static_cast<T>(acc[i] + in[i]);
      }
      if (op == ReduceOp::mean)
        for (int64_t i = 0; i < n; ++i) acc[i] = static_cast<T>(acc[i] / static_cast<T>(ts.size()));
    } else {
      throw Error(detail::concat(round.what, ": the replicas reduce no ", dtype_name(out.dtype()),
                                 " tensors; reduce it as float32"));
    }
  });
  for (const Tensor& t : ts) copy_into(t, out);
}

class ThreadRank final : public Communicator {
 public:
  ThreadRank(std::shared_ptr<Group> group, int rank) : group_(std::move(group)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return group_->size; }
  std::string_view backend() const override { return "threads"; }

  void set_timeout(std::chrono::milliseconds timeout) override {
    Communicator::set_timeout(timeout);
    group_->timeout_ms = timeout.count();
  }

  Ticket start_all_reduce(const Tensor& t, ReduceOp op, std::string what) override {
    check_host(t, what);
    return join(std::move(what), t, [op](Round& r) { reduce(r, op); });
  }

  void wait(Ticket ticket) override { finish(ticket); }

  void broadcast(const Tensor& t, int root, std::string what) override {
    check_host(t, what);
    KILN_CHECK(root >= 0 && root < size(), what, ": no rank ", root, " among ", size());
    finish(join(std::move(what), t, [root](Round& r) {
      for (const Tensor& x : r.tensors) copy_into(x, r.tensors[static_cast<size_t>(root)]);
    }));
  }

  Tensor all_gather(const Tensor& t, std::string what) override {
    check_host(t, what);
    // A copy each: the caller may write to it.
    return finish(join(std::move(what), t,
                       [](Round& r) {
                         std::vector<Tensor> rows;
                         for (const Tensor& x : r.tensors) rows.push_back(ops::expand_dims(x, 0));
                         r.gathered = ops::concat(rows, 0);
                       }))
        .clone();
  }

  void barrier(std::string what) override { finish(join(std::move(what), Tensor(), nullptr)); }

  // The group as it was made: no round pending, not aborted, this rank's count at zero.
  void restart() {
    const std::lock_guard lock(group_->mutex);
    group_->aborted.clear();
    group_->rounds.clear();
    issued_ = 0;
  }

  [[noreturn]] void abort(const std::string& reason) override {
    const std::string why = detail::concat("replica ", rank_, " of ", size(), ": ", reason);
    {
      const std::lock_guard lock(group_->mutex);
      if (group_->aborted.empty()) group_->aborted = why;
    }
    group_->changed.notify_all();
    throw Error(why);
  }

 private:
  void check_host(const Tensor& t, const std::string& what) const {
    KILN_CHECK(t.device().is_cpu(), what,
               ": replicas in threads exchange host tensors, got one on ", t.device());
  }

  // Adds this rank's `t` to its next round; the last rank to join combines the round.
  Ticket join(std::string what, const Tensor& t, const Combine& combine) {
    const Ticket ticket = ++issued_;
    std::unique_lock lock(group_->mutex);
    if (!group_->aborted.empty()) throw Error(detail::concat(what, ": ", group_->aborted));
    Round& r = group_->rounds[ticket];
    if (r.joined.empty()) {
      r.what = what;
      r.tensors.resize(static_cast<size_t>(size()));
      r.joined.assign(static_cast<size_t>(size()), false);
    }
    if (r.what != what) {
      lock.unlock();
      abort(detail::concat("issued ", what, " where another replica issued ", r.what,
                           ": the replicas' steps differ"));
    }
    r.tensors[static_cast<size_t>(rank_)] = t;
    r.joined[static_cast<size_t>(rank_)] = true;
    if (++r.count < size()) return ticket;
    try {
      if (combine) combine(r);
    } catch (const std::exception& e) {
      lock.unlock();
      abort(e.what());
    }
    r.done = true;
    lock.unlock();
    group_->changed.notify_all();
    return ticket;
  }

  // Waits for the round of `ticket` (at most the timeout) and returns its gathered tensor.
  Tensor finish(Ticket ticket) {
    std::unique_lock lock(group_->mutex);
    Round& r = group_->rounds.at(ticket);
    const auto deadline = Clock::now() + std::chrono::milliseconds(group_->timeout_ms.load());
    group_->changed.wait_until(lock, deadline, [&] { return r.done || !group_->aborted.empty(); });
    if (!r.done) {
      if (!group_->aborted.empty()) throw Error(detail::concat(r.what, ": ", group_->aborted));
      const std::string reason =
          detail::concat(r.what, " did not finish within ", group_->timeout_ms.load() / 1000.0,
                         " s: replica ", missing(r), " never joined it (failed or stalled)");
      lock.unlock();
      abort(reason);
    }
    Tensor gathered = r.gathered;
    if (++r.released == size()) group_->rounds.erase(ticket);
    return gathered;
  }

  std::shared_ptr<Group> group_;
  int rank_;
  Ticket issued_ = 0;
};

}  // namespace

void restart(const std::vector<std::shared_ptr<Communicator>>& ranks) {
  for (const std::shared_ptr<Communicator>& c : ranks) {
    auto* rank = dynamic_cast<ThreadRank*>(c.get());
    KILN_CHECK(rank != nullptr, "restart: a rank of another kind than thread_group's");
    rank->restart();
  }
}

std::vector<std::shared_ptr<Communicator>> thread_group(int size) {
  KILN_CHECK(size >= 1, "a group of threads needs at least one rank, got ", size);
  auto group = std::make_shared<Group>(size);
  std::vector<std::shared_ptr<Communicator>> ranks;
  for (int r = 0; r < size; ++r) ranks.push_back(std::make_shared<ThreadRank>(group, r));
  return ranks;
}

}  // namespace kiln::distributed
