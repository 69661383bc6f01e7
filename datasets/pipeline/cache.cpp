// Dataset::cache: the first complete pass is kept in memory and replayed by later passes.
#include <mutex>

#include "kiln/datasets/dataset.h"

namespace kiln::datasets {
namespace {

using Elements = std::vector<Element>;

// Shared by every pass (and every copy of the Dataset): the cache, once complete.
struct CacheState {
  std::mutex mutex;
  std::shared_ptr<const Elements> elements;
};

class ReplayIterator final : public ElementIterator {
 public:
  explicit ReplayIterator(std::shared_ptr<const Elements> elements)
      : elements_(std::move(elements)) {}

  std::optional<Element> next() override {
    if (index_ == elements_->size()) return std::nullopt;
    return (*elements_)[index_++];
  }

 private:
  std::shared_ptr<const Elements> elements_;
  size_t index_ = 0;
};

class FillIterator final : public ElementIterator {
 public:
  FillIterator(std::unique_ptr<ElementIterator> upstream, CacheState& state)
      : upstream_(std::move(upstream)), state_(state) {}

  std::optional<Element> next() override {
    if (done_) return std::nullopt;
    std::optional<Element> e = upstream_->next();
    if (e) {
      seen_.push_back(*e);  // copies handles, not data
      return e;
    }
    done_ = true;
    // Two passes may fill at once; the first to complete wins, both saw the same elements
    // unless upstream is randomized per pass, and then either order is a valid cache.
    std::lock_guard lock(state_.mutex);
    if (!state_.elements) state_.elements = std::make_shared<const Elements>(std::move(seen_));
    return std::nullopt;
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  CacheState& state_;
  Elements seen_;
  bool done_ = false;
};

class CacheNode final : public DatasetNode {
 public:
  explicit CacheNode(std::shared_ptr<const DatasetNode> upstream)
      : upstream_(std::move(upstream)), state_(std::make_unique<CacheState>()) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    std::shared_ptr<const Elements> cached;
    {
      std::lock_guard lock(state_->mutex);
      cached = state_->elements;
    }
    if (cached) return std::make_unique<ReplayIterator>(std::move(cached));
    return std::make_unique<FillIterator>(upstream_->make_iterator(pass), *state_);
  }
  int64_t cardinality() const override { return upstream_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  std::unique_ptr<CacheState> state_;  // mutable through const passes: the cache fills lazily
};

}  // namespace

Dataset Dataset::cache() const {
  return Dataset(std::make_shared<CacheNode>(node_));
}

}  // namespace kiln::datasets
