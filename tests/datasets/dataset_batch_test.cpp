// batch: stacking, the remainder, cardinality and the mismatch error.
#include <gmock/gmock.h>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

TEST(Batch, StacksConsecutiveElementsPerComponent) {
  const Tensor x = arange(0, 10, 1, DType::f32).view({5, 2});
  const Dataset ds = Dataset::from_tensor_slices({x, arange(5)}).batch(2);
  Iterator it = ds.iterator();
  const Element first = *it.next();
  EXPECT_EQ(first[0].shape(), Shape({2, 2}));
  EXPECT_EQ(first[0].to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(first[1].shape(), Shape({2}));
  EXPECT_EQ(first[1].dtype(), DType::i64);
  EXPECT_EQ(first[1].to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
}

TEST(Batch, CopiesRowsIntoANewTensor) {
  const Tensor x = arange(0, 4, 1, DType::f32).view({2, 2});
  const Element b = *Dataset::from_tensor_slices({x}).batch(2).iterator().next();
  EXPECT_NE(b[0].raw_data(), x.raw_data());
  x.data<float>()[0] = 100;
  EXPECT_EQ(b[0].to_vector<float>()[0], 0.0f);
}

// Over slices, alone or shuffled, batch stacks rows from their indices (DatasetNode::stack_at);
// after a map it stacks the elements. Both give the same batches, every component.
TEST(Batch, StacksSlicesByIndexAsItStacksElements) {
  const Tensor images = arange(0, 23 * 6, 1, DType::f32).view({23, 2, 3});
  const Tensor labels = arange(100, 123);
  const Dataset slices = Dataset::from_tensor_slices({images, labels});
  const Dataset mapped = slices.map([](const Element& e) { return e; });
  const Dataset elements = Dataset::from_elements([&] {
    std::vector<Element> rows;
    for (int64_t i = 0; i < 23; ++i) rows.push_back(*slices.skip(i).iterator().next());
    return rows;
  }());
  const auto all_batches = [](const Dataset& ds) {
    std::vector<std::pair<std::vector<float>, std::vector<int64_t>>> out;
    Iterator it = ds.iterator(3);
    while (std::optional<Element> b = it.next()) {
      EXPECT_EQ(b->at(0).shape(), Shape({b->at(1).dim(0), 2, 3}));
      out.emplace_back(b->at(0).to_vector<float>(), b->at(1).to_vector<int64_t>());
    }
    return out;
  };
  for (const bool drop : {false, true}) {
    const auto in_order = all_batches(mapped.batch(5, drop));
    EXPECT_EQ(all_batches(slices.batch(5, drop)), in_order);
    const auto shuffled = all_batches(mapped.shuffle(23, 9).batch(5, drop));
    EXPECT_EQ(all_batches(slices.shuffle(23, 9).batch(5, drop)), shuffled);
    EXPECT_EQ(all_batches(elements.shuffle(23, 9).batch(5, drop)), shuffled);
    EXPECT_NE(shuffled, in_order);
    EXPECT_EQ(in_order.size(), drop ? 4u : 5u);
  }
}

TEST(Batch, KeepsOrDropsTheRemainder) {
  EXPECT_EQ(batches(range_dataset(7).batch(3)),
            (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_EQ(batches(range_dataset(7).batch(3, /*drop_remainder=*/true)),
            (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}}));
  EXPECT_TRUE(batches(range_dataset(2).batch(3, true)).empty());
  EXPECT_EQ(batches(range_dataset(6).batch(3, true)).size(), 2u);
}

TEST(Batch, Cardinality) {
  EXPECT_EQ(range_dataset(7).batch(3).cardinality(), 3);
  EXPECT_EQ(range_dataset(7).batch(3, true).cardinality(), 2);
  EXPECT_EQ(range_dataset(6).batch(3).cardinality(), 2);
  EXPECT_EQ(range_dataset(0).batch(3).cardinality(), 0);
  EXPECT_EQ(range_dataset(7).repeat().batch(3).cardinality(), kInfinite);
  EXPECT_EQ(range_dataset(7).filter([](const Element&) { return true; }).batch(3).cardinality(),
            kUnknown);
  // The trainer's case: 60000 / 128 -> 469 steps.
  EXPECT_EQ(Dataset::from_tensor_slices({zeros({60000})}).batch(128).cardinality(), 469);
}

TEST(Batch, ShapeMismatchNamesTheComponentTheElementAndBothShapes) {
  const Dataset ds = Dataset::from_generator([] {
    return [i = 0]() mutable -> std::optional<Element> {
      if (i == 3) return std::nullopt;
      ++i;
      return Element{scalar(0), zeros({i == 3 ? 2 : 3}, DType::i64)};
    };
  });
  const std::string msg = error_of([&] { (void)values(ds.batch(3).iterator()); });
  EXPECT_THAT(msg, HasSubstr("Dataset::batch: component 1 of element 2 is int64[2] but element 0 "
                             "has int64[3]"));
}

TEST(Batch, DTypeAndComponentCountMismatchesAreErrors) {
  const Dataset mixed_dtypes = range_dataset(2).map([](const Element& e) {
    return Element{e[0].item<int64_t>() == 0 ? scalar(0, DType::f32) : scalar(0, DType::f64)};
  });
  EXPECT_THAT(error_of([&] { (void)mixed_dtypes.batch(2).iterator().next(); }),
              HasSubstr("component 0 of element 1 is float64[] but element 0 has float32[]"));
  const Dataset mixed_arity = range_dataset(2).map([](const Element& e) {
    return e[0].item<int64_t>() == 0 ? Element{e[0]} : Element{e[0], e[0]};
  });
  EXPECT_THAT(error_of([&] { (void)mixed_arity.batch(2).iterator().next(); }),
              HasSubstr("element 1 has 2 components (int64[], int64[]) but element 0 has 1"));
}

TEST(Batch, RejectsNonPositiveSizes) {
  EXPECT_THAT(error_of([] { (void)range_dataset(3).batch(0); }),
              HasSubstr("batch_size must be at least 1, got 0"));
}

}  // namespace
}  // namespace kiln::datasets::testing
