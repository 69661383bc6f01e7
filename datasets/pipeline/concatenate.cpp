// Dataset::concatenate: this dataset's elements, then another's. Their elements must have the
// same components (dtypes and ranks), checked as the second's arrive.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

// "float32 rank 2, int64 rank 0": what two concatenated datasets' elements must share.
std::string signature(const Element& e) {
  std::string s;
  for (const Tensor& t : e)
    s += (s.empty() ? "" : ", ") + std::string(dtype_name(t.dtype())) + " rank " +
         std::to_string(t.rank());
  return s;
}

class ConcatenateIterator final : public ElementIterator {
 public:
  ConcatenateIterator(std::unique_ptr<ElementIterator> first,
                      std::unique_ptr<ElementIterator> second)
      : first_(std::move(first)), second_(std::move(second)) {}

  std::optional<Element> next() override {
    if (first_) {
      if (std::optional<Element> e = first_->next()) {
        if (signature_.empty()) signature_ = signature(*e);
        return e;
      }
      first_.reset();
    }
    std::optional<Element> e = second_->next();
    if (e && !signature_.empty())
      KILN_CHECK(signature(*e) == signature_, "Dataset::concatenate: the second dataset's ",
                 "elements are (", signature(*e), "), the first's (", signature_, ")");
    return e;
  }

 private:
  std::unique_ptr<ElementIterator> first_, second_;
  std::string signature_;
};

class ConcatenateNode final : public DatasetNode {
 public:
  ConcatenateNode(std::shared_ptr<const DatasetNode> first,
                  std::shared_ptr<const DatasetNode> second)
      : first_(std::move(first)), second_(std::move(second)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<ConcatenateIterator>(first_->make_iterator(pass),
                                                 second_->make_iterator(pass));
  }
  int64_t cardinality() const override {
    const int64_t a = first_->cardinality(), b = second_->cardinality();
    if (a == kInfinite || b == kInfinite) return kInfinite;
    if (a == kUnknown || b == kUnknown) return kUnknown;
    return a + b;
  }

 private:
  std::shared_ptr<const DatasetNode> first_, second_;
};

}  // namespace

Dataset Dataset::concatenate(const Dataset& other) const {
  return Dataset(std::make_shared<ConcatenateNode>(node_, other.node()));
}

}  // namespace kiln::datasets
