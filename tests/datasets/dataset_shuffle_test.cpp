// shuffle: a permutation, deterministic for (seed, pass), reshuffled per pass, bounded by its
// buffer, and independent of the thread that runs it.
#include <gmock/gmock.h>

#include <algorithm>
#include <numeric>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::vector<int64_t> sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Shuffle, IsAPermutationThatMovesElements) {
  const std::vector<int64_t> order = values(range_dataset(100).shuffle(100, 7), 0);
  EXPECT_EQ(sorted(order), iota(100));
  EXPECT_NE(order, iota(100));
  EXPECT_EQ(range_dataset(100).shuffle(100, 7).cardinality(), 100);
}

TEST(Shuffle, SameSeedAndPassGiveTheSameOrderInIndependentPipelines) {
  // Two datasets built separately: nothing is shared but (seed, pass).
  for (uint64_t pass : {0, 1, 5})
    EXPECT_EQ(values(range_dataset(50).shuffle(20, 42), pass),
              values(range_dataset(50).shuffle(20, 42), pass));
  EXPECT_NE(values(range_dataset(50).shuffle(20, 42), 0),
            values(range_dataset(50).shuffle(20, 43), 0));
}

TEST(Shuffle, ReshufflesEachPassUnlessAskedNotTo) {
  const Dataset reshuffled = range_dataset(50).shuffle(50, 3);
  EXPECT_NE(values(reshuffled, 0), values(reshuffled, 1));
  const Dataset fixed = range_dataset(50).shuffle(50, 3, /*reshuffle_each_iteration=*/false);
  EXPECT_EQ(values(fixed, 0), values(fixed, 1));
  EXPECT_EQ(values(fixed, 0), values(reshuffled, 0));
}

TEST(Shuffle, SuccessiveIteratorsWalkThePassesAndCopiesShareTheCount) {
  const Dataset ds = range_dataset(30).shuffle(30, 9);
  const Dataset copy = ds;
  EXPECT_EQ(values(ds.iterator()), values(ds, 0));
  EXPECT_EQ(values(copy.iterator()), values(ds, 1));
  std::vector<int64_t> range_for;
  for (const Element& e : ds) range_for.push_back(e[0].item<int64_t>());
  EXPECT_EQ(range_for, values(ds, 2));
}

TEST(Shuffle, SlicesShuffleByIndexInTheSameOrderAsBufferedElements) {
  // Over tensor slices the buffer holds indices; after a map it holds elements. Same order.
  const Dataset slices = range_dataset(300);
  const Dataset mapped = slices.map([](const Element& e) { return e; });
  for (size_t buffer : {1, 7, 64, 300, 5000})
    for (uint64_t pass : {0, 2})
      EXPECT_EQ(values(slices.shuffle(buffer, 17), pass), values(mapped.shuffle(buffer, 17), pass))
          << "buffer " << buffer << ", pass " << pass;
}

TEST(Shuffle, BufferOfOneKeepsTheOrder) {
  EXPECT_EQ(values(range_dataset(10).shuffle(1, 5), 0), iota(10));
}

TEST(Shuffle, SmallBufferOnlyReordersLocally) {
  // With a buffer of b, the element at output position p was among the first p + b inputs.
  const int64_t b = 4;
  const std::vector<int64_t> order = values(range_dataset(200).shuffle(b, 11), 0);
  EXPECT_EQ(sorted(order), iota(200));
  for (size_t p = 0; p < order.size(); ++p) EXPECT_LT(order[p], static_cast<int64_t>(p) + b);
}

TEST(Shuffle, OrderDoesNotDependOnTheThreadThatRunsIt) {
  const Dataset ds = range_dataset(500).shuffle(100, 21);
  EXPECT_EQ(values(ds.prefetch(3), 4), values(ds, 4));
}

TEST(Shuffle, ThenBatchMixesRowsButBatchThenShuffleKeepsBatchesWhole) {
  const std::vector<std::vector<int64_t>> mixed =
      batches(range_dataset(12).shuffle(12, 1).batch(4));
  const std::vector<std::vector<int64_t>> whole = batches(range_dataset(12).batch(4).shuffle(3, 1));
  ASSERT_EQ(mixed.size(), 3u);
  ASSERT_EQ(whole.size(), 3u);
  std::vector<int64_t> all;
  bool any_noncontiguous = false;
  for (const auto& rows : mixed) {
    all.insert(all.end(), rows.begin(), rows.end());
    for (size_t i = 1; i < rows.size(); ++i) any_noncontiguous |= rows[i] != rows[i - 1] + 1;
  }
  EXPECT_EQ(sorted(all), iota(12));
  EXPECT_TRUE(any_noncontiguous);
  std::vector<int64_t> firsts;
  for (const auto& rows : whole) {
    EXPECT_EQ(rows, (std::vector<int64_t>{rows[0], rows[0] + 1, rows[0] + 2, rows[0] + 3}));
    firsts.push_back(rows[0]);
  }
  EXPECT_EQ(sorted(firsts), (std::vector<int64_t>{0, 4, 8}));
}

}  // namespace
}  // namespace kiln::datasets::testing
