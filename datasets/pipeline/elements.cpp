// Dataset::from_elements: a dataset of given elements, which may differ in shape (sequences of
// different lengths, before padded_batch or bucket_by_sequence_length).
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class ElementsIterator final : public ElementIterator {
 public:
  explicit ElementsIterator(const std::vector<Element>& elements) : elements_(elements) {}

  std::optional<Element> next() override {
    if (index_ >= elements_.size()) return std::nullopt;
    return elements_[index_++];
  }

 private:
  const std::vector<Element>& elements_;
  size_t index_ = 0;
};

class ElementsNode final : public DatasetNode {
 public:
  explicit ElementsNode(std::vector<Element> elements) : elements_(std::move(elements)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t) const override {
    return std::make_unique<ElementsIterator>(elements_);
  }
  int64_t cardinality() const override { return static_cast<int64_t>(elements_.size()); }
  bool has_random_access() const override { return true; }
  Element element_at(int64_t index) const override { return elements_[static_cast<size_t>(index)]; }

 private:
  std::vector<Element> elements_;
};

}  // namespace

Dataset Dataset::from_elements(std::vector<Element> elements) {
  for (size_t e = 0; e < elements.size(); ++e) {
    KILN_CHECK(elements[e].size() == elements[0].size(), "Dataset::from_elements: element ", e,
               " has ", elements[e].size(), " components ", describe(elements[e]),
               " but element 0 has ", elements[0].size(), " ", describe(elements[0]));
    for (size_t c = 0; c < elements[e].size(); ++c) {
      const Tensor& t = elements[e][c];
      KILN_CHECK(t.defined() && !t.is_symbolic() && t.device().is_cpu(),
                 "Dataset::from_elements: component ", c, " of element ", e,
                 " must be a CPU tensor with data");
    }
  }
  return Dataset(std::make_shared<ElementsNode>(std::move(elements)));
}

}  // namespace kiln::datasets
