// repeat, take and skip: counts, edges (0, -1, past the end), cardinality, and how repeat
// numbers the passes of a shuffle it repeats.
#include <gmock/gmock.h>

#include <algorithm>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

using Values = std::vector<int64_t>;

TEST(Repeat, RepeatsCountTimes) {
  EXPECT_EQ(values(range_dataset(3).repeat(2), 0), (Values{0, 1, 2, 0, 1, 2}));
  EXPECT_TRUE(values(range_dataset(3).repeat(0), 0).empty());
  EXPECT_EQ(values(range_dataset(3).repeat(1), 0), (Values{0, 1, 2}));
}

TEST(Repeat, ForeverStopsOnlyWhereTakeSaysSo) {
  EXPECT_EQ(values(range_dataset(2).repeat().take(5), 0), (Values{0, 1, 0, 1, 0}));
}

TEST(Repeat, ForeverOverAnEmptyDatasetEnds) {
  EXPECT_TRUE(values(range_dataset(0).repeat(), 0).empty());
  EXPECT_TRUE(
      values(range_dataset(4).filter([](const Element&) { return false; }).repeat(), 0).empty());
}

TEST(Repeat, Cardinality) {
  EXPECT_EQ(range_dataset(3).repeat(4).cardinality(), 12);
  EXPECT_EQ(range_dataset(3).repeat().cardinality(), kInfinite);
  EXPECT_EQ(range_dataset(3).repeat(0).cardinality(), 0);
  EXPECT_EQ(range_dataset(0).repeat().cardinality(), 0);
  // More than an int64 counts saturates, and batches of it still count from there.
  EXPECT_EQ(range_dataset(60000).repeat(int64_t{1} << 50).cardinality(), kInfinite);
  EXPECT_EQ(range_dataset(3).repeat(int64_t{1} << 61).batch(4).cardinality(),
            ((int64_t{3} << 61) + 3) / 4);
  EXPECT_EQ(range_dataset(3).filter([](const Element&) { return true; }).repeat(2).cardinality(),
            kUnknown);
  EXPECT_THAT(error_of([] { (void)range_dataset(3).repeat(-2); }), HasSubstr("count must be -1"));
}

TEST(Repeat, ReshufflesEveryRepetition) {
  const Dataset shuffled = range_dataset(20).shuffle(20, 4);
  const Values all = values(shuffled.repeat(3), 0);
  ASSERT_EQ(all.size(), 60u);
  const Values first(all.begin(), all.begin() + 20), second(all.begin() + 20, all.begin() + 40);
  EXPECT_NE(first, second);
  Values sorted_second = second;
  std::sort(sorted_second.begin(), sorted_second.end());
  EXPECT_EQ(sorted_second, values(range_dataset(20), 0));
}

TEST(Repeat, PassPOfRepeatNIsPassesPnToPnPlusNMinusOneOfTheDataset) {
  // Repeating n times and iterating n times give the same orders, and the orders of a repeated
  // dataset's later passes (epochs) do not overlap those of earlier ones.
  const Dataset shuffled = range_dataset(10).shuffle(10, 8);
  const Dataset twice = shuffled.repeat(2);
  for (uint64_t pass : {0, 1, 3}) {
    Values expected = values(shuffled, 2 * pass);
    const Values next = values(shuffled, 2 * pass + 1);
    expected.insert(expected.end(), next.begin(), next.end());
    EXPECT_EQ(values(twice, pass), expected) << "pass " << pass;
  }
  // Forever-repeats of pass 0 walk passes 0, 1, 2, ... too.
  Values forever = values(shuffled.repeat().take(20), 0);
  EXPECT_EQ(Values(forever.begin() + 10, forever.end()), values(shuffled, 1));
}

TEST(Repeat, LaterPassesOfAForeverRepeatDiffer) {
  const Dataset forever = range_dataset(10).shuffle(10, 8).repeat().take(30);
  EXPECT_NE(values(forever, 0), values(forever, 1));
  EXPECT_EQ(values(forever, 1), values(forever, 1));
}

TEST(Take, Edges) {
  EXPECT_EQ(values(range_dataset(5).take(2), 0), (Values{0, 1}));
  EXPECT_TRUE(values(range_dataset(5).take(0), 0).empty());
  EXPECT_EQ(values(range_dataset(5).take(-1), 0), values(range_dataset(5), 0));
  EXPECT_EQ(values(range_dataset(5).take(9), 0), values(range_dataset(5), 0));
}

TEST(Take, DoesNotPullPastTheLastElementTaken) {
  int pulled = 0;
  const Dataset counted = range_dataset(10).map([&pulled](const Element& e) {
    ++pulled;
    return e;
  });
  EXPECT_EQ(values(counted.take(3), 0).size(), 3u);
  EXPECT_EQ(pulled, 3);
}

TEST(Take, Cardinality) {
  EXPECT_EQ(range_dataset(5).take(2).cardinality(), 2);
  EXPECT_EQ(range_dataset(5).take(9).cardinality(), 5);
  EXPECT_EQ(range_dataset(5).take(-1).cardinality(), 5);
  EXPECT_EQ(range_dataset(5).repeat().take(7).cardinality(), 7);
  EXPECT_EQ(range_dataset(5).filter([](const Element&) { return true; }).take(2).cardinality(),
            kUnknown);
}

TEST(Skip, Edges) {
  EXPECT_EQ(values(range_dataset(5).skip(2), 0), (Values{2, 3, 4}));
  EXPECT_EQ(values(range_dataset(5).skip(0), 0), values(range_dataset(5), 0));
  EXPECT_TRUE(values(range_dataset(5).skip(5), 0).empty());
  EXPECT_TRUE(values(range_dataset(5).skip(9), 0).empty());
  EXPECT_TRUE(values(range_dataset(5).skip(-1), 0).empty());
}

TEST(Skip, Cardinality) {
  EXPECT_EQ(range_dataset(5).skip(2).cardinality(), 3);
  EXPECT_EQ(range_dataset(5).skip(9).cardinality(), 0);
  EXPECT_EQ(range_dataset(5).skip(-1).cardinality(), 0);
  EXPECT_EQ(range_dataset(5).repeat().skip(3).cardinality(), kInfinite);
}

TEST(TakeSkip, SplitADatasetIntoDisjointParts) {
  // The usual train / validation split of a fixed shuffle.
  const Dataset shuffled = range_dataset(10).shuffle(10, 2, false);
  Values both = values(shuffled.take(7), 0);
  const Values rest = values(shuffled.skip(7), 3);
  both.insert(both.end(), rest.begin(), rest.end());
  EXPECT_EQ(both, values(shuffled, 0));
}

}  // namespace
}  // namespace kiln::datasets::testing
