#pragma once
// tf.data-style input pipelines. A Dataset is an immutable, cheap-to-copy description of a
// stream of elements (each a vector of component tensors); transformations return new Datasets
// and nothing runs until a pass is started with iterator() or a range-for:
//
//   auto ds = Dataset::from_tensor_slices({images, labels}).shuffle(60000, seed).batch(128)
//                 .prefetch(2);
//   for (const Element& batch : ds) train_step(batch[0], batch[1]);
//
// Passes are numbered. iterator() starts the next pass of this Dataset (copies share the count),
// so iterating twice reshuffles, as in tf.data; iterator(pass) picks the pass, so a trainer that
// passes the epoch number repeats the same order when a run is resumed.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include "kiln/datasets/pipeline/dataset_node.h"
#include "kiln/datasets/pipeline/element.h"

namespace kiln::datasets {

// One pass over a dataset. Move-only; destroying it mid-pass stops background work (the threads
// of prefetch) cleanly.
class Iterator {
 public:
  explicit Iterator(std::shared_ptr<const DatasetNode> pipeline, uint64_t pass)
      : pipeline_(std::move(pipeline)), impl_(pipeline_->make_iterator(pass)) {}
  // The next element, or nullopt once the pass is over. Errors raised upstream (in a map
  // function, a prefetch thread, a loader) propagate from here.
  std::optional<Element> next() { return impl_->next(); }

 private:
  // Element iterators may refer to their nodes' members: the pipeline lives while they run,
  // and is declared first so that it is released after them.
  std::shared_ptr<const DatasetNode> pipeline_;
  std::unique_ptr<ElementIterator> impl_;
};

// The input iterator behind range-for; end() is std::default_sentinel.
class RangeIterator {
 public:
  using value_type = Element;
  using difference_type = std::ptrdiff_t;

  explicit RangeIterator(Iterator pass) : pass_(std::move(pass)), current_(pass_.next()) {}
  const Element& operator*() const { return *current_; }
  const Element* operator->() const { return &*current_; }
  RangeIterator& operator++() {
    current_ = pass_.next();
    return *this;
  }
  void operator++(int) { ++*this; }
  bool operator==(std::default_sentinel_t) const { return !current_.has_value(); }

 private:
  Iterator pass_;
  std::optional<Element> current_;
};

// num_parallel_calls that picks the thread count (tf.data.AUTOTUNE).
inline constexpr int kAutotune = -1;

// Returns the next element of a pass, or nullopt at its end.
using GeneratorFn = std::function<std::optional<Element>()>;

// Dataset::bucket_by_sequence_length's optional arguments (tf.data's names).
struct BucketOptions {
  PaddingSpec padding;  // as padded_batch's
  // Pad the variable axes to the bucket's upper boundary - 1 instead of the batch's longest:
  // one shape per bucket. Every element must then be shorter than the last boundary.
  bool pad_to_bucket_boundary = false;
  bool drop_remainder = false;  // drop each bucket's partial batch at the end of a pass
};

class Dataset {
 public:
  explicit Dataset(std::shared_ptr<const DatasetNode> node);

  // Slices every component along axis 0: element i is {components[0][i], components[1][i], ...}.
  // Slices are views of the components' storage (no copy). Components must be CPU tensors of
  // rank >= 1 with the same leading size; the error names each component's index and shape.
  static Dataset from_tensor_slices(std::vector<Tensor> components);
  // make_generator is called at the start of every pass and returns that pass's generator.
  // cardinality is what cardinality() reports (kUnknown unless the caller knows better).
  static Dataset from_generator(std::function<GeneratorFn()> make_generator,
                                int64_t cardinality = kUnknown);
  // The given elements, which may differ in shape (sequences of different lengths). Components
  // must be CPU tensors.
  static Dataset from_elements(std::vector<Element> elements);

  Dataset map(std::function<Element(const Element&)> fn) const;
  // map on num_parallel_calls worker threads (kAutotune: one per hardware thread), at most twice
  // that many elements in flight; elements come out in the input's order, so results do not
  // depend on the thread count. fn must be safe to call from several threads at once. The
  // workers' CPU kernels run on one thread each (configure_background_thread).
  Dataset map(std::function<Element(const Element&)> fn, int num_parallel_calls) const;
  // tf.data's interleave: each element becomes a dataset (map_func, e.g. one file's records);
  // cycle_length of them (kAutotune: one per hardware thread) are read in turn, block_length
  // elements from each, a finished one replaced by the next element's. num_parallel_calls != 0
  // reads each open dataset ahead on a thread of its own; the order stays the sequential one.
  Dataset interleave(std::function<Dataset(const Element&)> map_func, int64_t cycle_length,
                     int64_t block_length = 1, int num_parallel_calls = 0) const;
  // Keeps the elements for which predicate returns true.
  Dataset filter(std::function<bool(const Element&)> predicate) const;
  // Fills a buffer of buffer_size elements and emits a uniformly chosen one, refilling its slot
  // from upstream (tf.data's algorithm: buffer_size >= the dataset size is a full shuffle). The
  // order depends only on (seed, pass) when reshuffle_each_iteration, else on seed alone.
  Dataset shuffle(size_t buffer_size, uint64_t seed, bool reshuffle_each_iteration = true) const;
  // Stacks batch_size consecutive elements into one; the last, smaller batch is kept unless
  // drop_remainder. Components must match in shape and dtype across the elements of a batch.
  Dataset batch(int64_t batch_size, bool drop_remainder = false) const;
  // Like batch, for elements whose components differ in shape: each component is padded (after
  // its data) to `padding`'s shape, by default the longest in the batch on every axis, with
  // `padding`'s value (default 0). Ranks and dtypes must match.
  Dataset padded_batch(int64_t batch_size, PaddingSpec padding = {},
                       bool drop_remainder = false) const;
  // Puts each element in the bucket of its length (length_fn; default axis 0 of component 0):
  // bucket k holds lengths in [boundaries[k-1], boundaries[k]), the first from 0, the last to
  // infinity. A bucket emits a padded batch when it holds batch_sizes[k] elements; at the end of
  // a pass the partial buckets are emitted (shortest first) unless options.drop_remainder.
  Dataset bucket_by_sequence_length(std::function<int64_t(const Element&)> length_fn,
                                    std::vector<int64_t> boundaries,
                                    std::vector<int64_t> batch_sizes,
                                    BucketOptions options = {}) const;
  // Repeats the dataset count times; -1 repeats forever. Each repetition is a new upstream pass
  // (so an upstream shuffle reshuffles); repeating forever, a repetition that yields nothing
  // ends the repeat.
  Dataset repeat(int64_t count = -1) const;
  // The first count elements; -1 takes all.
  Dataset take(int64_t count) const;
  // All but the first count elements; -1 skips all.
  Dataset skip(int64_t count) const;
  // Produces up to buffer_size elements ahead on a background thread.
  Dataset prefetch(size_t buffer_size) const;
  // The same, each element's tensors moved to `device` on that thread (strings stay on the host),
  // so the copy overlaps the step: tf.data's prefetch_to_device, the pipeline's last
  // transformation (the others read host tensors). fit finds its batches on the model's device.
  Dataset prefetch(size_t buffer_size, const Device& device) const;
  // The elements of `datasets` side by side, each element's components concatenated in order,
  // until the shortest dataset ends (tf.data.Dataset.zip).
  static Dataset zip(const std::vector<Dataset>& datasets);
  // This dataset's elements, then other's; their components must match in dtype and rank.
  Dataset concatenate(const Dataset& other) const;
  // Splits every element along axis 0 into its rows (the inverse of batch); the components must
  // share their first dimension.
  Dataset unbatch() const;
  // Every num_shards-th element starting at element index: worker index's share of the data.
  Dataset shard(int64_t num_shards, int64_t index) const;
  // Keeps the elements of the first complete pass in memory; later passes read them instead of
  // running upstream again. A pass abandoned midway caches nothing. Copies share the cache.
  Dataset cache() const;
  // The same in a file, which later passes read instead of memory: it is written whole at the
  // end of the first complete pass (an abandoned pass leaves none), and a later run finds it and
  // reads it too (delete it when the data changes), as tf.data's cache(filename).
  Dataset cache(const std::string& filename) const;

  // Starts the next pass of this dataset (0, 1, 2, ... counted across copies of it).
  Iterator iterator() const;
  // Starts pass `pass`.
  Iterator iterator(uint64_t pass) const;
  RangeIterator begin() const { return RangeIterator(iterator()); }
  std::default_sentinel_t end() const { return {}; }

  // Elements in one pass, or kInfinite / kUnknown (e.g. after filter).
  int64_t cardinality() const { return node_->cardinality(); }
  const std::shared_ptr<const DatasetNode>& node() const { return node_; }

 private:
  std::shared_ptr<const DatasetNode> node_;
  std::shared_ptr<std::atomic<uint64_t>> next_pass_;
};

}  // namespace kiln::datasets
