#include "kiln/datasets/dataset.h"

#include "kiln/framework/core/error.h"

namespace kiln::datasets {

Dataset::Dataset(std::shared_ptr<const DatasetNode> node)
    : node_(std::move(node)), next_pass_(std::make_shared<std::atomic<uint64_t>>(0)) {
  KILN_CHECK(node_ != nullptr, "Dataset: null pipeline node");
}

Iterator Dataset::iterator() const {
  return iterator(next_pass_->fetch_add(1));
}

Iterator Dataset::iterator(uint64_t pass) const {
  return Iterator(node_, pass);
}

}  // namespace kiln::datasets
