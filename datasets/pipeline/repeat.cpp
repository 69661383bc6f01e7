// Dataset::repeat: runs upstream passes back to back.
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

// The upstream pass for repetition r of pass p. With a finite count n it is p * n + r, so pass
// p of ds.repeat(n) is exactly passes p*n .. p*n+n-1 of ds: repeating and iterating several
// times shuffle alike. Forever-repeats of pass 0 use passes 0, 1, 2, ...; of a later pass p they
// start at a 64-bit mix of p (splitmix64's finalizer), far from any small pass number.
uint64_t upstream_pass(uint64_t pass, int64_t count, uint64_t repetition) {
  if (count > 0) return pass * static_cast<uint64_t>(count) + repetition;
  if (pass == 0) return repetition;
  uint64_t z = pass + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) + repetition;
}

class RepeatIterator final : public ElementIterator {
 public:
  RepeatIterator(const DatasetNode& upstream, uint64_t pass, int64_t count)
      : upstream_(upstream), pass_(pass), count_(count) {}

  std::optional<Element> next() override {
    while (count_ < 0 || repetition_ < static_cast<uint64_t>(count_)) {
      if (!current_) {
        current_ = upstream_.make_iterator(upstream_pass(pass_, count_, repetition_));
        yielded_ = false;
      }
      if (std::optional<Element> e = current_->next()) {
        yielded_ = true;
        return e;
      }
      current_.reset();
      ++repetition_;
      // An empty pass would make a forever-repeat spin without end.
      if (count_ < 0 && !yielded_) break;
    }
    return std::nullopt;
  }

 private:
  const DatasetNode& upstream_;
  uint64_t pass_;
  int64_t count_;
  uint64_t repetition_ = 0;
  std::unique_ptr<ElementIterator> current_;
  bool yielded_ = false;  // whether the current repetition produced an element
};

class RepeatNode final : public DatasetNode {
 public:
  RepeatNode(std::shared_ptr<const DatasetNode> upstream, int64_t count)
      : upstream_(std::move(upstream)), count_(count) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<RepeatIterator>(*upstream_, pass, count_);
  }
  int64_t cardinality() const override {
    const int64_t n = upstream_->cardinality();
    if (count_ == 0 || n == 0) return 0;
    if (count_ < 0 || n == kInfinite) return kInfinite;
    if (n == kUnknown) return kUnknown;
    int64_t total = 0;
    // More elements than an int64 counts never end in practice.
    return __builtin_mul_overflow(n, count_, &total) ? kInfinite : total;
  }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  int64_t count_;
};

}  // namespace

Dataset Dataset::repeat(int64_t count) const {
  KILN_CHECK(count >= -1, "Dataset::repeat: count must be -1 (forever) or >= 0, got ", count);
  return Dataset(std::make_shared<RepeatNode>(node_, count));
}

}  // namespace kiln::datasets
