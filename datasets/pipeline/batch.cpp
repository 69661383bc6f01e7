// Dataset::batch and Dataset::padded_batch: combine consecutive elements into one, by stacking
// equal shapes or by padding them to a common one.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

// Makes one batch element from its rows (stack_rows or pad_rows).
using CombineRows = std::function<Element(std::span<const Element>)>;

// What batch prefixes its errors with.
constexpr std::string_view kBatch = "Dataset::batch";

class BatchIterator final : public ElementIterator {
 public:
  // `stacks`: combine is stack_rows, so batches of a random-access source's rows may be stacked
  // by the source itself from their indices (DatasetNode::stack_at), with the same result.
  BatchIterator(std::unique_ptr<ElementIterator> upstream, int64_t batch_size, bool drop_remainder,
                const CombineRows& combine, bool stacks)
      : upstream_(std::move(upstream)),
        batch_size_(static_cast<size_t>(batch_size)),
        drop_remainder_(drop_remainder),
        combine_(combine),
        index_source_(stacks ? upstream_->index_source() : nullptr) {}

  std::optional<Element> next() override {
    if (index_source_ != nullptr) return next_by_index();
    rows_.clear();
    while (rows_.size() < batch_size_) {
      std::optional<Element> e = upstream_->next();
      if (!e) break;
      rows_.push_back(std::move(*e));
    }
    if (!is_batch(rows_.size())) return std::nullopt;
    return combine_(rows_);
  }

 private:
  std::optional<Element> next_by_index() {
    indices_.clear();
    while (indices_.size() < batch_size_) {
      std::optional<int64_t> i = upstream_->next_index();
      if (!i) break;
      indices_.push_back(*i);
    }
    if (!is_batch(indices_.size())) return std::nullopt;
    return index_source_->stack_at(indices_, kBatch);
  }

  bool is_batch(size_t rows) const { return rows != 0 && !(drop_remainder_ && rows < batch_size_); }

  std::unique_ptr<ElementIterator> upstream_;
  size_t batch_size_;
  bool drop_remainder_;
  const CombineRows& combine_;
  const DatasetNode* index_source_;
  // Kept across calls so their capacity is reused.
  std::vector<Element> rows_;
  std::vector<int64_t> indices_;
};

class BatchNode final : public DatasetNode {
 public:
  BatchNode(std::shared_ptr<const DatasetNode> upstream, int64_t batch_size, bool drop_remainder,
            CombineRows combine, bool stacks)
      : upstream_(std::move(upstream)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder),
        combine_(std::move(combine)),
        stacks_(stacks) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<BatchIterator>(upstream_->make_iterator(pass), batch_size_,
                                           drop_remainder_, combine_, stacks_);
  }
  int64_t cardinality() const override {
    const int64_t n = upstream_->cardinality();
    if (n < 0) return n;  // infinite or unknown stays so
    return n / batch_size_ + (!drop_remainder_ && n % batch_size_ != 0 ? 1 : 0);
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  int64_t batch_size_;
  bool drop_remainder_;
  CombineRows combine_;
  bool stacks_;
};

}  // namespace

Dataset Dataset::batch(int64_t batch_size, bool drop_remainder) const {
  KILN_CHECK(batch_size >= 1, "Dataset::batch: batch_size must be at least 1, got ", batch_size);
  return Dataset(std::make_shared<BatchNode>(
      node_, batch_size, drop_remainder,
      [](std::span<const Element> rows) { return stack_rows(rows, kBatch); }, true));
}

Dataset Dataset::padded_batch(int64_t batch_size, PaddingSpec padding, bool drop_remainder) const {
  KILN_CHECK(batch_size >= 1, "Dataset::padded_batch: batch_size must be at least 1, got ",
             batch_size);
  return Dataset(std::make_shared<BatchNode>(
      node_, batch_size, drop_remainder,
      [padding = std::move(padding)](std::span<const Element> rows) {
        return pad_rows(rows, padding, "Dataset::padded_batch");
      },
      false));
}

}  // namespace kiln::datasets
