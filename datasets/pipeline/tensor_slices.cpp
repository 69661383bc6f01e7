// Dataset::from_tensor_slices: element i holds row i of every component, as views.
#include <sstream>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

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

  // Strings have no kernels: their rows are copied here.
  static Tensor gather_strings(const SlicedComponent& c, std::span<const int64_t> indices) {
    std::vector<int64_t> dims{static_cast<int64_t>(indices.size())};
    dims.insert(dims.end(), c.row_shape.begin(), c.row_shape.end());
    Tensor out = Tensor::empty(Shape(std::move(dims)), DType::string, Device::cpu());
    const std::string* from = c.source.data<std::string>();
    std::string* to = out.data<std::string>();
    for (const int64_t index : indices)
      to = std::copy_n(from + index * c.row_numel, c.row_numel, to);
    return out;
  }

  // A batch of slices is a gather of the components' rows: the gather kernel copies them on the
  // thread pool, whose threads keep more of the rows' cache misses in flight (a shuffled
  // Fashion-MNIST epoch's rows take half the time of one thread's memcpy). On a prefetch worker
  // it runs on that thread alone.
  Element stack_at(std::span<const int64_t> indices, std::string_view) const override {
    const Tensor rows = from_vector(indices, Shape{static_cast<int64_t>(indices.size())},
                                    DType::i64, Device::cpu());
    Element out;
    out.reserve(components_.size());
    for (const SlicedComponent& c : components_)
      out.push_back(c.source.dtype() == DType::string ? gather_strings(c, indices)
                                                      : ops::gather(c.source, rows));
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
