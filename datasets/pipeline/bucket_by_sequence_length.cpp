// Dataset::bucket_by_sequence_length: groups elements of similar length into buckets and emits a
// padded batch whenever a bucket fills, so batches carry little padding; with
// pad_to_bucket_boundary every batch of a bucket has the same shape, bounding the distinct batch
// shapes (and so the traces of a train step) by the number of buckets.
#include <algorithm>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

constexpr const char* kWhat = "Dataset::bucket_by_sequence_length";

struct Bucketing {
  std::function<int64_t(const Element&)> length_fn;
  std::vector<int64_t> boundaries;
  std::vector<int64_t> batch_sizes;
  BucketOptions options;
};

class BucketIterator final : public ElementIterator {
 public:
  BucketIterator(std::unique_ptr<ElementIterator> upstream, const Bucketing& b)
      : upstream_(std::move(upstream)), b_(b), buckets_(b.batch_sizes.size()) {}

  std::optional<Element> next() override {
    while (!upstream_done_) {
      std::optional<Element> e = upstream_->next();
      if (!e) {
        upstream_done_ = true;
        break;
      }
      const size_t k = bucket_of(*e);
      buckets_[k].push_back(std::move(*e));
      if (buckets_[k].size() == static_cast<size_t>(b_.batch_sizes[k])) return emit(k);
    }
    // Upstream is over: the partial buckets, shortest sequences first.
    if (b_.options.drop_remainder) return std::nullopt;
    for (; flushed_ < buckets_.size(); ++flushed_)
      if (!buckets_[flushed_].empty()) return emit(flushed_++);
    return std::nullopt;
  }

 private:
  size_t bucket_of(const Element& e) const {
    const int64_t length = b_.length_fn(e);
    KILN_CHECK(length >= 0, kWhat, ": the length function returned ", length, " for element ",
               describe(e));
    const auto k =
        static_cast<size_t>(std::upper_bound(b_.boundaries.begin(), b_.boundaries.end(), length) -
                            b_.boundaries.begin());
    KILN_CHECK(!b_.options.pad_to_bucket_boundary || k < b_.boundaries.size(), kWhat,
               ": an element of length ", length, " ", describe(e),
               " is not below the last bucket boundary ", b_.boundaries.back(),
               ", so it has no boundary to be padded to (raise the last boundary or truncate)");
    return k;
  }

  Element emit(size_t k) {
    // A bucket [lo, hi) pads to hi - 1, its longest possible element.
    const int64_t length = b_.options.pad_to_bucket_boundary ? b_.boundaries[k] - 1 : -1;
    Element batch = pad_rows(buckets_[k], b_.options.padding, kWhat, length);
    buckets_[k].clear();
    return batch;
  }

  std::unique_ptr<ElementIterator> upstream_;
  const Bucketing& b_;
  std::vector<std::vector<Element>> buckets_;
  bool upstream_done_ = false;
  size_t flushed_ = 0;
};

class BucketNode final : public DatasetNode {
 public:
  BucketNode(std::shared_ptr<const DatasetNode> upstream, Bucketing bucketing)
      : upstream_(std::move(upstream)), bucketing_(std::move(bucketing)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<BucketIterator>(upstream_->make_iterator(pass), bucketing_);
  }
  int64_t cardinality() const override {
    return upstream_->cardinality() == kInfinite ? kInfinite : kUnknown;
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  Bucketing bucketing_;
};

}  // namespace

Dataset Dataset::bucket_by_sequence_length(std::function<int64_t(const Element&)> length_fn,
                                           std::vector<int64_t> boundaries,
                                           std::vector<int64_t> batch_sizes,
                                           BucketOptions options) const {
  KILN_CHECK(!boundaries.empty(), kWhat, ": needs at least one bucket boundary");
  KILN_CHECK(batch_sizes.size() == boundaries.size() + 1, kWhat, ": ", boundaries.size(),
             " boundaries make ", boundaries.size() + 1, " buckets, but ", batch_sizes.size(),
             " batch sizes were given");
  for (size_t k = 0; k < boundaries.size(); ++k)
    KILN_CHECK(boundaries[k] >= 1 && (k == 0 || boundaries[k] > boundaries[k - 1]), kWhat,
               ": boundaries must be positive and increasing, got ", Shape(boundaries));
  for (int64_t size : batch_sizes)
    KILN_CHECK(size >= 1, kWhat, ": batch sizes must be at least 1, got ", Shape(batch_sizes));
  if (!length_fn) {
    length_fn = [](const Element& e) {
      KILN_CHECK(!e.empty() && e[0].rank() >= 1, kWhat,
                 ": the default length (axis 0 of component 0) needs a sequence, got ",
                 describe(e));
      return e[0].dim(0);
    };
  }
  return Dataset(
      std::make_shared<BucketNode>(node_, Bucketing{std::move(length_fn), std::move(boundaries),
                                                    std::move(batch_sizes), std::move(options)}));
}

}  // namespace kiln::datasets
