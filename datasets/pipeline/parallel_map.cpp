// Dataset::map with num_parallel_calls: worker threads apply the function to several elements at
// once, and the results come out in the input's order, so the same seed gives the same batches
// whatever the thread count (tf.data's deterministic map). Workers take elements from upstream
// one at a time under a lock of their own (not the one next() takes), numbering them as they go,
// apply the function outside both locks and leave each result in its numbered slot; next()
// waits for the next number. At most 2 * threads elements are in flight. An error in the function or upstream reaches next() at
// its element, after the elements before it.
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

using MapFn = std::function<Element(const Element&)>;

class ParallelMapIterator final : public ElementIterator {
 public:
  ParallelMapIterator(std::unique_ptr<ElementIterator> upstream, const MapFn& fn, int threads)
      : upstream_(std::move(upstream)), fn_(fn), in_flight_(2 * static_cast<size_t>(threads)) {
    for (int t = 0; t < threads; ++t) workers_.emplace_back([this] { work(); });
  }

  // Workers finish the element in hand (user code cannot be interrupted) and stop.
  ~ParallelMapIterator() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& w : workers_) w.join();
  }

  std::optional<Element> next() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return next_out_ >= end_ || done_.contains(next_out_); });
    // Past the last element, or past an error (elements numbered after it are dropped).
    if (next_out_ >= end_) return std::nullopt;
    const auto it = done_.find(next_out_);
    Slot slot = std::move(it->second);
    done_.erase(it);
    ++next_out_;
    lock.unlock();
    changed_.notify_all();  // a slot is free
    if (slot.error) std::rethrow_exception(slot.error);
    return std::move(slot.element);
  }

 private:
  struct Slot {
    Element element;
    std::exception_ptr error;
  };

  void work() {
    configure_background_thread();
    while (true) {
      std::optional<Element> in;
      uint64_t number = 0;
      {
        // Pulls take turns under their own lock, so an element's number is its place upstream;
        // next() meanwhile delivers finished elements under mutex_ alone.
        std::unique_lock pull(upstream_mutex_);
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock,
                        [&] { return stop_ || ended() || next_in_ - next_out_ < in_flight_; });
          if (stop_ || ended()) return;
          number = next_in_++;
        }
        try {
          in = upstream_->next();
        } catch (...) {
          std::lock_guard lock(mutex_);
          finish(number, {{}, std::current_exception()});
          return;
        }
        if (!in) {
          std::lock_guard lock(mutex_);
          end_ = std::min(end_, number);
          changed_.notify_all();
          return;
        }
      }
      Slot slot;
      try {
        slot.element = fn_(*in);
      } catch (...) {
        slot.error = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      finish(number, std::move(slot));
    }
  }

  // Under the lock: the result of element `number`; an error also ends the pass after it.
  void finish(uint64_t number, Slot slot) {
    if (slot.error) end_ = std::min(end_, number + 1);
    done_.emplace(number, std::move(slot));
    changed_.notify_all();
  }

  bool ended() const { return next_in_ >= end_; }

  std::unique_ptr<ElementIterator> upstream_;  // pulled by one worker at a time
  std::mutex upstream_mutex_;                  // taken before mutex_, never after
  const MapFn& fn_;
  const size_t in_flight_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint64_t, Slot> done_;  // finished elements not yet delivered
  uint64_t next_in_ = 0;           // the number the next element taken from upstream gets
  uint64_t next_out_ = 0;          // the number next() delivers next
  uint64_t end_ = UINT64_MAX;      // the number past the last element, once known
  bool stop_ = false;
  std::vector<std::thread> workers_;  // last: start once everything above is initialized
};

class ParallelMapNode final : public DatasetNode {
 public:
  ParallelMapNode(std::shared_ptr<const DatasetNode> upstream, MapFn fn, int threads)
      : upstream_(std::move(upstream)), fn_(std::move(fn)), threads_(threads) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<ParallelMapIterator>(upstream_->make_iterator(pass), fn_, threads_);
  }
  int64_t cardinality() const override { return upstream_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  MapFn fn_;
  int threads_;
};

}  // namespace

Dataset Dataset::map(std::function<Element(const Element&)> fn, int num_parallel_calls) const {
  KILN_CHECK(num_parallel_calls == kAutotune || num_parallel_calls >= 1,
             "Dataset::map: num_parallel_calls must be at least 1 or kAutotune, got ",
             num_parallel_calls);
  if (num_parallel_calls == 1) return map(std::move(fn));
  KILN_CHECK(fn != nullptr, "Dataset::map: no function");
  const int threads = num_parallel_calls == kAutotune
                          ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                          : num_parallel_calls;
  return Dataset(std::make_shared<ParallelMapNode>(node_, std::move(fn), threads));
}

}  // namespace kiln::datasets
