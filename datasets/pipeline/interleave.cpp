// Dataset::interleave: tf.data's interleave. Each input element becomes a dataset (map_func); up to
// cycle_length of them are open at once and block_length elements are taken from each in turn, a
// finished one replaced by the next input element's in its slot, so files are read side by side
// and their elements mixed. With num_parallel_calls each open dataset runs ahead on a thread of
// its own (a prefetch of its next blocks); the order is the sequential one either way.
#include <algorithm>
#include <thread>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

using MapToDataset = std::function<Dataset(const Element&)>;

struct InterleaveSpec {
  MapToDataset map_func;
  int64_t cycle_length;
  int64_t block_length;
  bool parallel;
};

class InterleaveIterator final : public ElementIterator {
 public:
  InterleaveIterator(std::unique_ptr<ElementIterator> input, const InterleaveSpec& spec,
                     uint64_t pass)
      : input_(std::move(input)),
        spec_(spec),
        pass_(pass),
        open_(static_cast<size_t>(spec.cycle_length)) {}

  // TensorFlow's InterleaveDatasetOp loop: read the slot's dataset; at its end free the slot and
  // move on; an empty slot takes the next input element (and is read at once).
  std::optional<Element> next() override {
    while (!end_of_input_ || num_open_ > 0) {
      Open& slot = open_[cycle_index_];
      if (slot.elements) {
        if (std::optional<Element> e = slot.elements->next()) {
          if (++block_index_ == spec_.block_length) advance();
          return e;
        }
        slot = Open{};
        --num_open_;
        advance();
      } else if (!end_of_input_) {
        if (std::optional<Element> e = input_->next()) {
          Dataset inner = spec_.map_func(*e);
          if (spec_.parallel) inner = inner.prefetch(static_cast<size_t>(spec_.block_length));
          slot.node = inner.node();
          slot.elements = slot.node->make_iterator(pass_);
          ++num_open_;
        } else {
          end_of_input_ = true;
        }
      } else {
        advance();
      }
    }
    return std::nullopt;
  }

 private:
  void advance() {
    block_index_ = 0;
    cycle_index_ = (cycle_index_ + 1) % open_.size();
  }

  // An open dataset: its iterator may refer to its node, which is declared first to outlive it.
  struct Open {
    std::shared_ptr<const DatasetNode> node;
    std::unique_ptr<ElementIterator> elements;
  };

  std::unique_ptr<ElementIterator> input_;
  const InterleaveSpec& spec_;
  uint64_t pass_;
  std::vector<Open> open_;
  size_t cycle_index_ = 0;
  int64_t block_index_ = 0;
  int64_t num_open_ = 0;
  bool end_of_input_ = false;
};

class InterleaveNode final : public DatasetNode {
 public:
  InterleaveNode(std::shared_ptr<const DatasetNode> input, InterleaveSpec spec)
      : input_(std::move(input)), spec_(std::move(spec)) {}

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    return std::make_unique<InterleaveIterator>(input_->make_iterator(pass), spec_, pass);
  }
  int64_t cardinality() const override { return input_->cardinality() == 0 ? 0 : kUnknown; }

 private:
  std::shared_ptr<const DatasetNode> input_;
  InterleaveSpec spec_;
};

}  // namespace

Dataset Dataset::interleave(std::function<Dataset(const Element&)> map_func, int64_t cycle_length,
                            int64_t block_length, int num_parallel_calls) const {
  KILN_CHECK(map_func != nullptr, "Dataset::interleave: no map_func");
  KILN_CHECK(block_length >= 1, "Dataset::interleave: block_length must be at least 1, got ",
             block_length);
  KILN_CHECK(cycle_length >= 1 || cycle_length == kAutotune,
             "Dataset::interleave: cycle_length must be at least 1 or autotune, got ",
             cycle_length);
  KILN_CHECK(num_parallel_calls >= 0 || num_parallel_calls == kAutotune,
             "Dataset::interleave: num_parallel_calls must be 0, a count or autotune, got ",
             num_parallel_calls);
  // tf.data's AUTOTUNE cycle: one open dataset per hardware thread.
  const int64_t cycle =
      cycle_length == kAutotune
          ? std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()))
          : cycle_length;
  return Dataset(std::make_shared<InterleaveNode>(
      node_, InterleaveSpec{std::move(map_func), cycle, block_length, num_parallel_calls != 0}));
}

}  // namespace kiln::datasets
