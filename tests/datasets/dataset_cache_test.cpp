// cache: the first complete pass fills it; later passes do not run upstream again.
#include <gmock/gmock.h>

#include "kiln/framework/ops/ops.h"
#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

Dataset counting_map(int& calls, int64_t n) {
  return range_dataset(n).map([&calls](const Element& e) {
    ++calls;
    return Element{e[0] + scalar(100, DType::i64)};
  });
}

TEST(Cache, LaterPassesDoNotRunTheUpstreamMap) {
  int calls = 0;
  const Dataset cached = counting_map(calls, 5).cache();
  EXPECT_EQ(cached.cardinality(), 5);
  const std::vector<int64_t> first = values(cached, 0);
  EXPECT_EQ(first, (std::vector<int64_t>{100, 101, 102, 103, 104}));
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(values(cached, 1), first);
  EXPECT_EQ(values(cached.repeat(3), 0).size(), 15u);
  EXPECT_EQ(calls, 5);
}

TEST(Cache, AnAbandonedPassFillsNothing) {
  int calls = 0;
  const Dataset cached = counting_map(calls, 5).cache();
  {
    Iterator partial = cached.iterator();
    partial.next();
    partial.next();
  }
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(values(cached, 1).size(), 5u);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(values(cached, 2).size(), 5u);
  EXPECT_EQ(calls, 7);
}

TEST(Cache, FreezesTheOrderOfAShuffleBeforeItButNotAfterIt) {
  const Dataset frozen = range_dataset(30).shuffle(30, 5).cache();
  EXPECT_EQ(values(frozen, 0), values(frozen, 1));
  const Dataset reshuffled = range_dataset(30).cache().shuffle(30, 5);
  EXPECT_NE(values(reshuffled, 0), values(reshuffled, 1));
}

TEST(Cache, CopiesOfTheDatasetShareIt) {
  int calls = 0;
  const Dataset cached = counting_map(calls, 4).cache();
  (void)values(cached, 0);
  const Dataset batched = cached.batch(2);  // downstream of the same cache node
  EXPECT_EQ(values(batched, 0).size(), 4u);
  EXPECT_EQ(calls, 4);
}

}  // namespace
}  // namespace kiln::datasets::testing
