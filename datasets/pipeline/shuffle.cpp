// Dataset::shuffle: tf.data's buffered shuffle, driven by Philox so the order depends only on
// (seed, pass) and never on threads or platform.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/random/philox.h"

namespace kiln::datasets {
namespace {

// Separates shuffle streams from random::Generator's, which use the same (key, counter) layout:
// a model seeded like its dataset must not draw the same numbers as the shuffle.
constexpr uint32_t kShuffleDomain = 0x53485546;  // "SHUF"

// Draw i of a pass is Philox block (i, pass) under key seed.
class ShuffleRng {
 public:
  ShuffleRng(uint64_t seed, uint64_t pass) : seed_(seed), pass_(pass) {}

  // An index in [0, n). 64 random bits modulo n: the bias, n / 2^64, is far below detection.
  size_t below(size_t n) {
    const uint64_t i = draws_++;
    const random::PhiloxBlock b = random::philox4x32(
        {static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32), static_cast<uint32_t>(pass_),
         static_cast<uint32_t>(pass_ >> 32) ^ kShuffleDomain},
        {static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32)});
    return static_cast<size_t>(((uint64_t{b[0]} << 32) | b[1]) % n);
  }

 private:
  uint64_t seed_;
  uint64_t pass_;
  uint64_t draws_ = 0;
};

// tf.data's algorithm over any item type: fill a buffer, emit a random item, put the next input
// in its slot. The draws depend only on buffer sizes, so shuffling elements or the indices of
// the same elements gives the same order.
template <typename Item>
class ShuffleBuffer {
 public:
  ShuffleBuffer(size_t capacity, ShuffleRng rng) : capacity_(capacity), rng_(rng) {}

  // pull() returns the next input item, or nullopt once the input is exhausted.
  template <typename Pull>
  std::optional<Item> next(Pull&& pull) {
    // Filled on the first call, not at construction, so that the work happens on the thread
    // that pulls (a prefetch thread) rather than the one that started the pass.
    if (!filled_) {
      filled_ = true;
      while (buffer_.size() < capacity_) {
        std::optional<Item> item = pull();
        if (!item) break;
        buffer_.push_back(std::move(*item));
      }
    }
    if (buffer_.empty()) return std::nullopt;
    const size_t i = rng_.below(buffer_.size());
    Item out = std::move(buffer_[i]);
    if (std::optional<Item> refill = pull()) {
      buffer_[i] = std::move(*refill);
    } else {
      // The input is done: the buffer drains by moving its last item into the hole.
      if (i + 1 != buffer_.size()) buffer_[i] = std::move(buffer_.back());
      buffer_.pop_back();
    }
    return out;
  }

 private:
  size_t capacity_;
  ShuffleRng rng_;
  bool filled_ = false;
  std::vector<Item> buffer_;
};

class ShuffleIterator final : public ElementIterator {
 public:
  ShuffleIterator(std::unique_ptr<ElementIterator> upstream, size_t buffer_size, ShuffleRng rng)
      : upstream_(std::move(upstream)), buffer_(buffer_size, rng) {}

  std::optional<Element> next() override {
    return buffer_.next([&] { return upstream_->next(); });
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  ShuffleBuffer<Element> buffer_;
};

// Over a random-access source only indices wait in the buffer; each element is made when it is
// emitted. A full shuffle of 60000 slices then holds 60000 integers instead of 60000 elements
// (a vector and two tensor handles each), which are slow to make, visit and free in random
// order.
class IndexShuffleIterator final : public ElementIterator {
 public:
  IndexShuffleIterator(const DatasetNode& source, size_t buffer_size, ShuffleRng rng)
      : source_(source), size_(source.cardinality()), buffer_(buffer_size, rng) {}

  std::optional<Element> next() override {
    const std::optional<int64_t> index = next_index();
    if (!index) return std::nullopt;
    return source_.element_at(*index);
  }

  const DatasetNode* index_source() const override { return &source_; }
  std::optional<int64_t> next_index() override {
    return buffer_.next([&]() -> std::optional<int64_t> {
      if (next_index_ == size_) return std::nullopt;
      return next_index_++;
    });
  }

 private:
  const DatasetNode& source_;
  int64_t size_;
  int64_t next_index_ = 0;
  ShuffleBuffer<int64_t> buffer_;
};

class ShuffleNode final : public DatasetNode {
 public:
  ShuffleNode(std::shared_ptr<const DatasetNode> upstream, size_t buffer_size, uint64_t seed,
              bool reshuffle_each_iteration)
      : upstream_(std::move(upstream)),
        buffer_size_(buffer_size),
        seed_(seed),
        reshuffle_(reshuffle_each_iteration) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    const ShuffleRng rng(seed_, reshuffle_ ? pass : 0);
    if (upstream_->has_random_access())
      return std::make_unique<IndexShuffleIterator>(*upstream_, buffer_size_, rng);
    return std::make_unique<ShuffleIterator>(upstream_->make_iterator(pass), buffer_size_, rng);
  }
  int64_t cardinality() const override { return upstream_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  size_t buffer_size_;
  uint64_t seed_;
  bool reshuffle_;
};

}  // namespace

Dataset Dataset::shuffle(size_t buffer_size, uint64_t seed, bool reshuffle_each_iteration) const {
  KILN_CHECK(buffer_size >= 1, "Dataset::shuffle: buffer_size must be at least 1");
  return Dataset(std::make_shared<ShuffleNode>(node_, buffer_size, seed, reshuffle_each_iteration));
}

}  // namespace kiln::datasets
