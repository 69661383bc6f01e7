// Dataset::unbatch: each element split along axis 0 into rows, every component giving one slice
// per row (the inverse of batch).
#include <deque>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::datasets {
namespace {

class UnbatchIterator final : public ElementIterator {
 public:
  explicit UnbatchIterator(std::unique_ptr<ElementIterator> upstream)
      : upstream_(std::move(upstream)) {}

  std::optional<Element> next() override {
    while (row_ >= rows_) {
      std::optional<Element> e = upstream_->next();
      if (!e) return std::nullopt;
      batch_ = std::move(*e);
      KILN_CHECK(!batch_.empty(), "Dataset::unbatch: an element without components");
      rows_ = -1;
      for (const Tensor& t : batch_) {
        KILN_CHECK(t.rank() >= 1, "Dataset::unbatch: component ", describe(batch_),
                   " has no batch axis");
        KILN_CHECK(rows_ < 0 || t.dim(0) == rows_, "Dataset::unbatch: the components of ",
                   describe(batch_), " differ in their first dimension");
        rows_ = t.dim(0);
      }
      row_ = 0;
    }
    Element out;
    for (const Tensor& t : batch_) {
      std::vector<int64_t> begin(static_cast<size_t>(t.rank()), 0), size(begin.size(), -1);
      begin[0] = row_;
      size[0] = 1;
      out.push_back(ops::squeeze(ops::slice(t, begin, size), {0}));
    }
    ++row_;
    return out;
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  Element batch_;
  int64_t rows_ = 0, row_ = 0;
};

class UnbatchNode final : public DatasetNode {
 public:
  explicit UnbatchNode(std::shared_ptr<const DatasetNode> upstream)
      : upstream_(std::move(upstream)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<UnbatchIterator>(upstream_->make_iterator(pass));
  }
  int64_t cardinality() const override {
    const int64_t n = upstream_->cardinality();
    return n == kInfinite ? kInfinite : n == 0 ? 0 : kUnknown;
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
};

}  // namespace

Dataset Dataset::unbatch() const {
  return Dataset(std::make_shared<UnbatchNode>(node_));
}

}  // namespace kiln::datasets
