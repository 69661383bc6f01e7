// Dataset::padded_batch: batches elements of different shapes, padding each component to a common
// shape.
#include "datasets/dataset.h"
#include "framework/core/error.h"

namespace kiln::datasets {
namespace {

class PaddedBatchIterator final : public ElementIterator {
 public:
  PaddedBatchIterator(std::unique_ptr<ElementIterator> upstream, int64_t batch_size,
                      const PaddingSpec& padding, bool drop_remainder)
      : upstream_(std::move(upstream)),
        batch_size_(static_cast<size_t>(batch_size)),
        padding_(padding),
        drop_remainder_(drop_remainder) {}

  std::optional<Element> next() override {
    rows_.clear();
    while (rows_.size() < batch_size_) {
      std::optional<Element> e = upstream_->next();
      if (!e) break;
      rows_.push_back(std::move(*e));
    }
    if (rows_.empty() || (drop_remainder_ && rows_.size() < batch_size_)) return std::nullopt;
    return pad_rows(rows_, padding_, "Dataset::padded_batch");
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  size_t batch_size_;
  const PaddingSpec& padding_;
  bool drop_remainder_;
  std::vector<Element> rows_;
};

class PaddedBatchNode final : public DatasetNode {
 public:
  PaddedBatchNode(std::shared_ptr<const DatasetNode> upstream, int64_t batch_size,
                  PaddingSpec padding, bool drop_remainder)
      : upstream_(std::move(upstream)),
        batch_size_(batch_size),
        padding_(std::move(padding)),
        drop_remainder_(drop_remainder) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<PaddedBatchIterator>(upstream_->make_iterator(pass), batch_size_,
                                                 padding_, drop_remainder_);
  }
  int64_t cardinality() const override {
    const int64_t n = upstream_->cardinality();
    if (n < 0) return n;
    return drop_remainder_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  int64_t batch_size_;
  PaddingSpec padding_;
  bool drop_remainder_;
};

}  // namespace

Dataset Dataset::padded_batch(int64_t batch_size, PaddingSpec padding, bool drop_remainder) const {
  KILN_CHECK(batch_size >= 1, "Dataset::padded_batch: batch_size must be at least 1, got ",
             batch_size);
  return Dataset(
      std::make_shared<PaddedBatchNode>(node_, batch_size, std::move(padding), drop_remainder));
}

}  // namespace kiln::datasets
