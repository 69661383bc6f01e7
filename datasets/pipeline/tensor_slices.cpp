// Dataset::from_tensor_slices: element i holds row i of every component, as views.
#include <cstring>
#include <sstream>

#include "datasets/dataset.h"
#include "framework/core/error.h"

namespace kiln::datasets {
namespace {

struct SlicedComponent {
  Tensor source;
  Shape row_shape;
  int64_t row_numel;
};

class TensorSlicesIterator final : public ElementIterator {
 public:
  explicit TensorSlicesIterator(const DatasetNode& node) : node_(node), rows_(node.cardinality()) {}

  std::optional<Element> next() override {
    const std::optional<int64_t> row = next_index();
    if (!row) return std::nullopt;
    return node_.element_at(*row);
  }

  const DatasetNode* index_source() const override { return &node_; }
  std::optional<int64_t> next_index() override {
    if (row_ >= rows_) return std::nullopt;
    return row_++;
  }

 private:
  const DatasetNode& node_;
  int64_t rows_;
  int64_t row_ = 0;
};

class TensorSlicesNode final : public DatasetNode {
 public:
  TensorSlicesNode(std::vector<SlicedComponent> components, int64_t rows)
      : components_(std::move(components)), rows_(rows) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t) const override {
    return std::make_unique<TensorSlicesIterator>(*this);
  }
  int64_t cardinality() const override { return rows_; }
  bool has_random_access() const override { return true; }

  // Views of row `index` of every component: no data is copied.
  Element element_at(int64_t index) const override {
    Element out;
    out.reserve(components_.size());
    for (const SlicedComponent& c : components_)
      out.push_back(c.source.view(c.row_shape, index * c.row_numel));
    return out;
  }

  // Rows are contiguous in each component, so a batch is one memcpy per row and component.
  Element stack_at(std::span<const int64_t> indices, std::string_view) const override {
    const auto n = static_cast<int64_t>(indices.size());
    Element out;
    out.reserve(components_.size());
    for (const SlicedComponent& c : components_) {
      std::vector<int64_t> dims{n};
      dims.insert(dims.end(), c.row_shape.begin(), c.row_shape.end());
      Tensor stacked = Tensor::empty(Shape(std::move(dims)), c.source.dtype());
      const size_t row_bytes = static_cast<size_t>(c.row_numel) * dtype_size(c.source.dtype());
      const auto* src = static_cast<const char*>(c.source.raw_data());
      auto* dst = static_cast<char*>(stacked.raw_data());
      for (const int64_t i : indices)
        dst = static_cast<char*>(
                  std::memcpy(dst, src + static_cast<size_t>(i) * row_bytes, row_bytes)) +
              row_bytes;
      out.push_back(std::move(stacked));
    }
    return out;
  }

 private:
  std::vector<SlicedComponent> components_;
  int64_t rows_;
};

std::string shapes_of(const std::vector<Tensor>& components) {
  std::ostringstream out;
  for (size_t c = 0; c < components.size(); ++c)
    out << (c ? ", " : "") << "component " << c << ": " << components[c].shape();
  return out.str();
}

}  // namespace

Dataset Dataset::from_tensor_slices(std::vector<Tensor> components) {
  KILN_CHECK(!components.empty(), "Dataset::from_tensor_slices: no components");
  std::vector<SlicedComponent> sliced;
  for (size_t c = 0; c < components.size(); ++c) {
    const Tensor& t = components[c];
    KILN_CHECK(t.defined() && !t.is_symbolic(), "Dataset::from_tensor_slices: component ", c,
               " has no data (undefined or symbolic)");
    KILN_CHECK(t.device().is_cpu(), "Dataset::from_tensor_slices: component ", c, " is on ",
               t.device(), "; pass CPU tensors (.to(Device::cpu()))");
    KILN_CHECK(t.rank() >= 1, "Dataset::from_tensor_slices: component ", c,
               " is a scalar; components are sliced along axis 0 and need rank >= 1");
    KILN_CHECK(t.dim(0) == components[0].dim(0), "Dataset::from_tensor_slices: component ", c,
               " has ", t.dim(0), " rows but component 0 has ", components[0].dim(0),
               "; all components need the same leading size (", shapes_of(components), ")");
    const Shape row_shape(std::vector<int64_t>(t.shape().begin() + 1, t.shape().end()));
    sliced.push_back({t, row_shape, row_shape.numel()});
  }
  const int64_t rows = components[0].dim(0);
  return Dataset(std::make_shared<TensorSlicesNode>(std::move(sliced), rows));
}

}  // namespace kiln::datasets
