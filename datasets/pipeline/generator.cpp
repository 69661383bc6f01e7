// Dataset::from_generator: elements produced by user code, one fresh generator per pass.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class GeneratorIterator final : public ElementIterator {
 public:
  explicit GeneratorIterator(GeneratorFn generate) : generate_(std::move(generate)) {}

  std::optional<Element> next() override {
    if (done_) return std::nullopt;
    std::optional<Element> out = generate_();
    done_ = !out.has_value();
    return out;
  }

 private:
  GeneratorFn generate_;
  bool done_ = false;  // a generator is not called again after it reported its end
};

class GeneratorNode final : public DatasetNode {
 public:
  GeneratorNode(std::function<GeneratorFn()> make_generator, int64_t cardinality)
      : make_generator_(std::move(make_generator)), cardinality_(cardinality) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t) const override {
    GeneratorFn generate = make_generator_();
    KILN_CHECK(generate != nullptr, "Dataset::from_generator: make_generator returned no function");
    return std::make_unique<GeneratorIterator>(std::move(generate));
  }
  int64_t cardinality() const override { return cardinality_; }

 private:
  std::function<GeneratorFn()> make_generator_;
  int64_t cardinality_;
};

}  // namespace

Dataset Dataset::from_generator(std::function<GeneratorFn()> make_generator, int64_t cardinality) {
  KILN_CHECK(make_generator != nullptr, "Dataset::from_generator: no generator factory");
  KILN_CHECK(cardinality >= kUnknown, "Dataset::from_generator: cardinality ", cardinality,
             " is not a count, kInfinite or kUnknown");
  return Dataset(std::make_shared<GeneratorNode>(std::move(make_generator), cardinality));
}

}  // namespace kiln::datasets
