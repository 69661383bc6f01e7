// Dataset::skip: drops the first count elements.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class SkipIterator final : public ElementIterator {
 public:
  SkipIterator(std::unique_ptr<ElementIterator> upstream, int64_t count)
      : upstream_(std::move(upstream)), to_skip_(count) {}

  std::optional<Element> next() override {
    // Skipping is deferred to the first pull, like every other upstream work.
    while (to_skip_ != 0) {
      if (!upstream_->next()) {
        to_skip_ = 0;
        return std::nullopt;
      }
      if (to_skip_ > 0) --to_skip_;
    }
    return upstream_->next();
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  int64_t to_skip_;  // -1: everything
};

class SkipNode final : public DatasetNode {
 public:
  SkipNode(std::shared_ptr<const DatasetNode> upstream, int64_t count)
      : upstream_(std::move(upstream)), count_(count) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<SkipIterator>(upstream_->make_iterator(pass), count_);
  }
  int64_t cardinality() const override {
    const int64_t n = upstream_->cardinality();
    if (n == kInfinite) return kInfinite;  // skip(-1) of it never ends either, as in tf.data
    if (count_ < 0) return 0;
    if (n == kUnknown) return kUnknown;
    return std::max<int64_t>(n - count_, 0);
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  int64_t count_;
};

}  // namespace

Dataset Dataset::skip(int64_t count) const {
  KILN_CHECK(count >= -1, "Dataset::skip: count must be -1 (all) or >= 0, got ", count);
  return Dataset(std::make_shared<SkipNode>(node_, count));
}

}  // namespace kiln::datasets
