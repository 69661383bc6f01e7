// Dataset::take: the first count elements.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class TakeIterator final : public ElementIterator {
 public:
  TakeIterator(std::unique_ptr<ElementIterator> upstream, int64_t count)
      : upstream_(std::move(upstream)), left_(count) {}

  std::optional<Element> next() override {
    if (left_ == 0) return std::nullopt;  // upstream is not pulled past the last element taken
    std::optional<Element> e = upstream_->next();
    if (e && left_ > 0) --left_;
    return e;
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  int64_t left_;  // -1: no limit
};

class TakeNode final : public DatasetNode {
 public:
  TakeNode(std::shared_ptr<const DatasetNode> upstream, int64_t count)
      : upstream_(std::move(upstream)), count_(count) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<TakeIterator>(upstream_->make_iterator(pass), count_);
  }
  int64_t cardinality() const override {
    const int64_t n = upstream_->cardinality();
    if (count_ < 0) return n;
    if (n == kInfinite) return count_;
    if (n == kUnknown) return kUnknown;
    return std::min(n, count_);
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  int64_t count_;
};

}  // namespace

Dataset Dataset::take(int64_t count) const {
  KILN_CHECK(count >= -1, "Dataset::take: count must be -1 (all) or >= 0, got ", count);
  return Dataset(std::make_shared<TakeNode>(node_, count));
}

}  // namespace kiln::datasets
