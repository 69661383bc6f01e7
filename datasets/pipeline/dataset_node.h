#pragma once
// The two interfaces every source and transformation implements. A DatasetNode is an immutable
// description of a pipeline stage; each pass over it builds a fresh chain of ElementIterators.
// Adding a transformation (padded_batch, bucket_by_sequence_length, ...) means one new node
// class and one Dataset method, nothing else changes.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "kiln/datasets/pipeline/element.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {

// cardinality() values that are not counts, as in tf.data.
inline constexpr int64_t kInfinite = -1;
inline constexpr int64_t kUnknown = -2;

class DatasetNode;

// One pass over a node's elements. Not thread-safe: one consumer pulls from it. It may keep
// references to its node's members: the public Iterator holds the whole pipeline while it runs.
class ElementIterator {
 public:
  virtual ~ElementIterator() = default;
  // The next element, or nullopt at the end of the pass (and on every later call).
  virtual std::optional<Element> next() = 0;

  // An iterator whose elements are those of a random-access node, taken one index at a time
  // (slices in order, a shuffle over them), names that node; next_index() then stands for
  // next(): the index of the element next() would have made. batch uses it to copy rows
  // straight from the node instead of making each element, a vector and tensor handles per row.
  virtual const DatasetNode* index_source() const { return nullptr; }
  virtual std::optional<int64_t> next_index() {
    throw Error("ElementIterator::next_index on an iterator without an index source");
  }
};

class DatasetNode {
 public:
  virtual ~DatasetNode() = default;
  // Starts pass `pass`. Randomized nodes derive their stream from it, so the same pass number
  // gives the same elements in the same order on every run and thread count.
  virtual std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const = 0;
  // The number of elements of one pass, or kInfinite / kUnknown.
  virtual int64_t cardinality() const = 0;

  // Whether element_at works: every pass yields the same cardinality() elements, each of which
  // can be made alone, in any order (tensor slices). A shuffle over such a node shuffles
  // indices and makes each element as it is emitted instead of buffering elements.
  virtual bool has_random_access() const { return false; }
  // Element `index` (0 <= index < cardinality()) of a node with random access.
  virtual Element element_at(int64_t) const {
    throw Error("DatasetNode::element_at on a node without random access");
  }
  // The elements at `indices` stacked as stack_rows(rows, what) stacks them, for a node with
  // random access. Nodes that hold their rows contiguously copy them without making elements.
  virtual Element stack_at(std::span<const int64_t> indices, std::string_view what) const;
};

}  // namespace kiln::datasets
