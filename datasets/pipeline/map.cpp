// Dataset::map: applies a function to every element.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

using MapFn = std::function<Element(const Element&)>;

class MapIterator final : public ElementIterator {
 public:
  MapIterator(std::unique_ptr<ElementIterator> upstream, const MapFn& fn)
      : upstream_(std::move(upstream)), fn_(fn) {}

  std::optional<Element> next() override {
    std::optional<Element> in = upstream_->next();
    if (!in) return std::nullopt;
    return fn_(*in);
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  const MapFn& fn_;
};

class MapNode final : public DatasetNode {
 public:
  MapNode(std::shared_ptr<const DatasetNode> upstream, MapFn fn)
      : upstream_(std::move(upstream)), fn_(std::move(fn)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<MapIterator>(upstream_->make_iterator(pass), fn_);
  }
  int64_t cardinality() const override { return upstream_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  MapFn fn_;
};

}  // namespace

Dataset Dataset::map(std::function<Element(const Element&)> fn) const {
  KILN_CHECK(fn != nullptr, "Dataset::map: no function");
  return Dataset(std::make_shared<MapNode>(node_, std::move(fn)));
}

}  // namespace kiln::datasets
