// Dataset::prefetch: a background thread runs upstream ahead of the consumer through a bounded
// queue, so input work overlaps the training step; given a device, it also moves each element
// there.
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class PrefetchIterator final : public ElementIterator {
 public:
  PrefetchIterator(std::unique_ptr<ElementIterator> upstream, size_t capacity,
                   std::optional<Device> device)
      : upstream_(std::move(upstream)),
        capacity_(capacity),
        device_(std::move(device)),
        worker_([this] { produce(); }) {}

  // Stops the worker at its next element boundary; an upstream next() already running (a slow
  // map) finishes first, since there is no safe way to interrupt user code.
  ~PrefetchIterator() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    has_space_.notify_all();
    worker_.join();
  }

  std::optional<Element> next() override {
    std::unique_lock lock(mutex_);
    has_element_.wait(lock, [&] { return !queue_.empty() || finished_; });
    if (!queue_.empty()) {
      Element e = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      has_space_.notify_one();
      return e;
    }
    // The elements produced before an upstream error are delivered first, then the error, once.
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return std::nullopt;
  }

 private:
  void produce() {
    configure_background_thread();
    try {
      while (!stopping()) {
        std::optional<Element> e = upstream_->next();
        if (!e) break;
        if (device_)
          for (Tensor& t : *e)
            if (t.dtype() != DType::string) t = t.to(*device_);
        std::unique_lock lock(mutex_);
        has_space_.wait(lock, [&] { return queue_.size() < capacity_ || stop_; });
        if (stop_) break;
        queue_.push_back(std::move(*e));
        lock.unlock();
        has_element_.notify_one();
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    has_element_.notify_all();
  }

  bool stopping() {
    std::lock_guard lock(mutex_);
    return stop_;
  }

  std::unique_ptr<ElementIterator> upstream_;  // used only by the worker while it runs
  const size_t capacity_;
  const std::optional<Device> device_;
  std::mutex mutex_;
  std::condition_variable has_element_;
  std::condition_variable has_space_;
  std::deque<Element> queue_;
  std::exception_ptr error_;
  bool finished_ = false;  // the worker will add nothing more
  bool stop_ = false;      // the consumer is gone
  std::thread worker_;     // last: starts once everything above is initialized
};

class PrefetchNode final : public DatasetNode {
 public:
  PrefetchNode(std::shared_ptr<const DatasetNode> upstream, size_t buffer_size,
               std::optional<Device> device)
      : upstream_(std::move(upstream)), buffer_size_(buffer_size), device_(std::move(device)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<PrefetchIterator>(upstream_->make_iterator(pass), buffer_size_,
                                              device_);
  }
  int64_t cardinality() const override { return upstream_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  size_t buffer_size_;
  std::optional<Device> device_;
};

}  // namespace

Dataset Dataset::prefetch(size_t buffer_size) const {
  KILN_CHECK(buffer_size >= 1, "Dataset::prefetch: buffer_size must be at least 1");
  return Dataset(std::make_shared<PrefetchNode>(node_, buffer_size, std::nullopt));
}

Dataset Dataset::prefetch(size_t buffer_size, const Device& device) const {
  KILN_CHECK(buffer_size >= 1, "Dataset::prefetch: buffer_size must be at least 1");
  return Dataset(std::make_shared<PrefetchNode>(node_, buffer_size, device));
}

}  // namespace kiln::datasets
