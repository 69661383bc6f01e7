// Dataset::batch: stacks consecutive elements into one.
#include "datasets/dataset.h"
#include "framework/core/error.h"

namespace kiln::datasets {
namespace {

class BatchIterator final : public ElementIterator {
 public:
  BatchIterator(std::unique_ptr<ElementIterator> upstream, int64_t batch_size, bool drop_remainder)
      : upstream_(std::move(upstream)),
        batch_size_(static_cast<size_t>(batch_size)),
        drop_remainder_(drop_remainder) {}

  std::optional<Element> next() override {
    rows_.clear();
    while (rows_.size() < batch_size_) {
      std::optional<Element> e = upstream_->next();
      if (!e) break;
      rows_.push_back(std::move(*e));
    }
    if (rows_.empty() || (drop_remainder_ && rows_.size() < batch_size_)) return std::nullopt;
    return stack_rows(rows_, "Dataset::batch");
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  size_t batch_size_;
  bool drop_remainder_;
  std::vector<Element> rows_;  // kept across calls so its capacity is reused
};

class BatchNode final : public DatasetNode {
 public:
  BatchNode(std::shared_ptr<const DatasetNode> upstream, int64_t batch_size, bool drop_remainder)
      : upstream_(std::move(upstream)), batch_size_(batch_size), drop_remainder_(drop_remainder) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<BatchIterator>(upstream_->make_iterator(pass), batch_size_,
                                           drop_remainder_);
  }
  int64_t cardinality() const override {
    const int64_t n = upstream_->cardinality();
    if (n < 0) return n;  // infinite or unknown stays so
    return drop_remainder_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  int64_t batch_size_;
  bool drop_remainder_;
};

}  // namespace

Dataset Dataset::batch(int64_t batch_size, bool drop_remainder) const {
  KILN_CHECK(batch_size >= 1, "Dataset::batch: batch_size must be at least 1, got ", batch_size);
  return Dataset(std::make_shared<BatchNode>(node_, batch_size, drop_remainder));
}

}  // namespace kiln::datasets
