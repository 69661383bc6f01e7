// Dataset::filter: keeps the elements a predicate accepts.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

using Predicate = std::function<bool(const Element&)>;

class FilterIterator final : public ElementIterator {
 public:
  FilterIterator(std::unique_ptr<ElementIterator> upstream, const Predicate& keep)
      : upstream_(std::move(upstream)), keep_(keep) {}

  std::optional<Element> next() override {
    while (std::optional<Element> in = upstream_->next())
      if (keep_(*in)) return in;
    return std::nullopt;
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  const Predicate& keep_;
};

class FilterNode final : public DatasetNode {
 public:
  FilterNode(std::shared_ptr<const DatasetNode> upstream, Predicate keep)
      : upstream_(std::move(upstream)), keep_(std::move(keep)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<FilterIterator>(upstream_->make_iterator(pass), keep_);
  }
  // How many elements pass is known only by running the predicate.
  int64_t cardinality() const override { return upstream_->cardinality() == 0 ? 0 : kUnknown; }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  Predicate keep_;
};

}  // namespace

Dataset Dataset::filter(std::function<bool(const Element&)> predicate) const {
  KILN_CHECK(predicate != nullptr, "Dataset::filter: no predicate");
  return Dataset(std::make_shared<FilterNode>(node_, std::move(predicate)));
}

}  // namespace kiln::datasets
