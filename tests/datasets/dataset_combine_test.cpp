// zip, concatenate, unbatch and shard: their elements, orders and cardinalities, and the
// mismatches they refuse.
#include <gmock/gmock.h>

#include "kiln/framework/ops/ops.h"
#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

TEST(Zip, PutsElementsSideBySideUntilTheShortestEnds) {
  const Dataset ds = Dataset::zip({range_dataset(5), range_dataset(3).map([](const Element& e) {
                                     return Element{e[0] * scalar(10, DType::i64)};
                                   })});
  EXPECT_EQ(ds.cardinality(), 3);
  std::vector<int64_t> pairs;
  for (const Element& e : ds) {
    ASSERT_EQ(e.size(), 2u);
    pairs.push_back(e[0].item<int64_t>() * 100 + e[1].item<int64_t>());
  }
  EXPECT_EQ(pairs, (std::vector<int64_t>{0, 110, 220}));
  EXPECT_EQ(Dataset::zip({range_dataset(5).repeat(), range_dataset(2)}).cardinality(), 2);
  EXPECT_EQ(
      Dataset::zip({range_dataset(5).filter([](const Element&) { return true; }), range_dataset(2)})
          .cardinality(),
      kUnknown);
}

TEST(Concatenate, GivesOneDatasetThenTheOther) {
  const Dataset ds = range_dataset(3).concatenate(range_dataset(2));
  EXPECT_EQ(ds.cardinality(), 5);
  EXPECT_EQ(values(ds, 0), (std::vector<int64_t>{0, 1, 2, 0, 1}));
  const Dataset mixed = range_dataset(1).concatenate(
      range_dataset(1).map([](const Element& e) { return Element{ops::cast(e[0], DType::f32)}; }));
  EXPECT_THAT(error_of([&] { (void)values(mixed, 0); }),
              HasSubstr("the second dataset's elements are (float32 rank 0), the first's "
                        "(int64 rank 0)"));
}

TEST(Unbatch, SplitsBatchesIntoRows) {
  const Dataset ds = range_dataset(7).batch(3).unbatch();
  EXPECT_EQ(values(ds, 0), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(ds.cardinality(), kUnknown);
  const Element pair{from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2}, DType::f32),
                     from_vector(std::vector<int64_t>{5, 6}, {2}, DType::i64)};
  const std::vector<Element> rows = [&] {
    std::vector<Element> out;
    for (const Element& e : Dataset::from_elements({pair}).unbatch()) out.push_back(e);
    return out;
  }();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][0].to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(rows[1][1].item<int64_t>(), 6);
  const Element uneven{zeros({2}, DType::f32, Device::cpu()),
                       zeros({3}, DType::f32, Device::cpu())};
  EXPECT_THAT(error_of([&] { (void)Dataset::from_elements({uneven}).unbatch().iterator().next(); }),
              HasSubstr("differ in their first dimension"));
}

TEST(Shard, TakesEveryNthElementFromItsIndex) {
  EXPECT_EQ(values(range_dataset(10).shard(3, 1), 0), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(range_dataset(10).shard(3, 1).cardinality(), 3);
  EXPECT_EQ(range_dataset(10).shard(3, 0).cardinality(), 4);
  EXPECT_EQ(range_dataset(2).shard(3, 2).cardinality(), 0);
  // The shards of a dataset hold each element once.
  std::vector<int64_t> all;
  for (int64_t k = 0; k < 4; ++k)
    for (const int64_t v : values(range_dataset(11).shard(4, k), 0)) all.push_back(v);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, values(range_dataset(11), 0));
  EXPECT_THAT(error_of([] { (void)range_dataset(3).shard(2, 2); }),
              HasSubstr("index must be in [0, num_shards)"));
}

}  // namespace
}  // namespace kiln::datasets::testing
