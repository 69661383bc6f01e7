// Dataset::zip: the elements of several datasets side by side, their components concatenated,
// until the shortest ends.
#include <algorithm>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class ZipIterator final : public ElementIterator {
 public:
  explicit ZipIterator(std::vector<std::unique_ptr<ElementIterator>> parts)
      : parts_(std::move(parts)) {}

  std::optional<Element> next() override {
    Element out;
    for (const std::unique_ptr<ElementIterator>& part : parts_) {
      std::optional<Element> e = part->next();
      if (!e) return std::nullopt;
      out.insert(out.end(), std::make_move_iterator(e->begin()), std::make_move_iterator(e->end()));
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<ElementIterator>> parts_;
};

class ZipNode final : public DatasetNode {
 public:
  explicit ZipNode(std::vector<std::shared_ptr<const DatasetNode>> parts)
      : parts_(std::move(parts)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    std::vector<std::unique_ptr<ElementIterator>> iterators;
    for (const auto& part : parts_) iterators.push_back(part->make_iterator(pass));
    return std::make_unique<ZipIterator>(std::move(iterators));
  }
  // The shortest length; unknown when any part's is, infinite when every part is.
  int64_t cardinality() const override {
    int64_t shortest = kInfinite;
    for (const auto& part : parts_) {
      const int64_t n = part->cardinality();
      if (n == kUnknown) return kUnknown;
      if (n != kInfinite) shortest = shortest == kInfinite ? n : std::min(shortest, n);
    }
    return shortest;
  }

 private:
  std::vector<std::shared_ptr<const DatasetNode>> parts_;
};

}  // namespace

Dataset Dataset::zip(const std::vector<Dataset>& datasets) {
  KILN_CHECK(!datasets.empty(), "Dataset::zip: no datasets");
  std::vector<std::shared_ptr<const DatasetNode>> parts;
  for (const Dataset& d : datasets) parts.push_back(d.node());
  return Dataset(std::make_shared<ZipNode>(std::move(parts)));
}

}  // namespace kiln::datasets
