// Dataset::shard: every num_shards-th element, from element `index`: one worker's part when
// several train data-parallel on the same files.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class ShardIterator final : public ElementIterator {
 public:
  ShardIterator(std::unique_ptr<ElementIterator> upstream, int64_t num_shards, int64_t index)
      : upstream_(std::move(upstream)), num_shards_(num_shards), skip_(index) {}

  std::optional<Element> next() override {
    for (; skip_ > 0; --skip_)
      if (!upstream_->next()) return std::nullopt;
    std::optional<Element> e = upstream_->next();
    skip_ = num_shards_ - 1;
    return e;
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  int64_t num_shards_;
  int64_t skip_;  // upstream elements to pass over before the next one kept
};

class ShardNode final : public DatasetNode {
 public:
  ShardNode(std::shared_ptr<const DatasetNode> upstream, int64_t num_shards, int64_t index)
      : upstream_(std::move(upstream)), num_shards_(num_shards), index_(index) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<ShardIterator>(upstream_->make_iterator(pass), num_shards_, index_);
  }
  int64_t cardinality() const override {
    const int64_t n = upstream_->cardinality();
    if (n < 0) return n;
    return n <= index_ ? 0 : (n - index_ + num_shards_ - 1) / num_shards_;
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  int64_t num_shards_, index_;
};

}  // namespace

Dataset Dataset::shard(int64_t num_shards, int64_t index) const {
  KILN_CHECK(num_shards >= 1 && index >= 0 && index < num_shards,
             "Dataset::shard: index must be in [0, num_shards) with num_shards >= 1, got index ",
             index, " of ", num_shards);
  return Dataset(std::make_shared<ShardNode>(node_, num_shards, index));
}

}  // namespace kiln::datasets
