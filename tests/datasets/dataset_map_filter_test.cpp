// map and filter: per-element functions, component count changes, cardinality.
#include <gmock/gmock.h>

#include "kiln/framework/ops/ops.h"
#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

TEST(Map, AppliesTheFunctionToEveryElement) {
  const Dataset ds =
      range_dataset(4).map([](const Element& e) { return Element{e[0] * scalar(10, DType::i64)}; });
  EXPECT_EQ(ds.cardinality(), 4);
  EXPECT_EQ(values(ds, 0), (std::vector<int64_t>{0, 10, 20, 30}));
}

TEST(Map, MayChangeTheNumberOfComponents) {
  // {x} -> {x, y, sample_weight}: the shape a trainer consumes.
  const Dataset ds = range_dataset(2).map([](const Element& e) {
    return Element{e[0], e[0] + scalar(1, DType::i64), scalar(0.5)};
  });
  for (const Element& e : ds) {
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[1].item<int64_t>(), e[0].item<int64_t>() + 1);
    EXPECT_EQ(e[2].item<float>(), 0.5f);
  }
}

TEST(Filter, KeepsAcceptedElementsAndMakesCardinalityUnknown) {
  const Dataset ds =
      range_dataset(10).filter([](const Element& e) { return e[0].item<int64_t>() % 3 == 0; });
  EXPECT_EQ(values(ds, 0), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(ds.cardinality(), kUnknown);
  EXPECT_EQ(range_dataset(0).filter([](const Element&) { return true; }).cardinality(), 0);
}

TEST(Filter, RejectingEverythingGivesAnEmptyPass) {
  EXPECT_TRUE(values(range_dataset(5).filter([](const Element&) { return false; }), 0).empty());
}

}  // namespace
}  // namespace kiln::datasets::testing
