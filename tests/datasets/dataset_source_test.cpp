// Sources: from_tensor_slices (zero-copy views) and from_generator; range-for and cardinality.
#include <gmock/gmock.h>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

TEST(FromTensorSlices, SlicesEveryComponentAlongAxisZero) {
  const Tensor x = arange(0, 12, 1, DType::f32).view({3, 2, 2});
  const Tensor y = arange(3);
  const Dataset ds = Dataset::from_tensor_slices({x, y});
  EXPECT_EQ(ds.cardinality(), 3);
  int64_t i = 0;
  for (const Element& e : ds) {
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].shape(), Shape({2, 2}));
    EXPECT_EQ(e[0].to_vector<float>(),
              (std::vector<float>{4.0f * i, 4.0f * i + 1, 4.0f * i + 2, 4.0f * i + 3}));
    EXPECT_EQ(e[1].shape(), Shape({}));
    EXPECT_EQ(e[1].item<int64_t>(), i);
    ++i;
  }
  EXPECT_EQ(i, 3);
}

TEST(FromTensorSlices, SlicesAreViewsOfTheSourceStorage) {
  const Tensor x = arange(0, 6, 1, DType::f32).view({3, 2});
  Iterator it = Dataset::from_tensor_slices({x}).iterator();
  it.next();
  const Element second = *it.next();
  EXPECT_EQ(second[0].raw_data(), x.data<float>() + 2);
}

TEST(FromTensorSlices, LeadingSizeMismatchNamesComponentsAndShapes) {
  const std::string msg = error_of([] {
    (void)Dataset::from_tensor_slices({zeros({4, 3}), zeros({4}), zeros({5, 2})});
  });
  EXPECT_THAT(msg, HasSubstr("component 2 has 5 rows but component 0 has 4"));
  EXPECT_THAT(msg, HasSubstr("component 0: [4, 3], component 1: [4], component 2: [5, 2]"));
}

TEST(FromTensorSlices, RejectsScalarsAndEmptyComponentLists) {
  EXPECT_THAT(error_of([] {
                (void)Dataset::from_tensor_slices({zeros({2}), scalar(1)});
              }),
              HasSubstr("component 1 is a scalar"));
  EXPECT_THAT(error_of([] { (void)Dataset::from_tensor_slices({}); }), HasSubstr("no components"));
}

TEST(FromTensorSlices, ZeroRowsGiveAnEmptyDataset) {
  const Dataset ds = Dataset::from_tensor_slices({zeros({0, 3})});
  EXPECT_EQ(ds.cardinality(), 0);
  EXPECT_FALSE(ds.iterator().next().has_value());
}

TEST(FromGenerator, CallsTheFactoryOncePerPass) {
  int factories = 0;
  const Dataset ds = Dataset::from_generator(
      [&factories] {
        ++factories;
        return [i = int64_t{0}]() mutable -> std::optional<Element> {
          if (i == 3) return std::nullopt;
          return Element{scalar(static_cast<double>(i++), DType::i64)};
        };
      },
      3);
  EXPECT_EQ(ds.cardinality(), 3);
  EXPECT_EQ(values(ds.iterator()), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(values(ds.iterator()), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(factories, 2);
  EXPECT_EQ(Dataset::from_generator([] {
              return GeneratorFn([] { return std::nullopt; });
            }).cardinality(),
            kUnknown);
}

TEST(Iterator, KeepsThePipelineAliveAndStaysDoneAfterTheEnd) {
  // The Dataset (and its nodes) are temporaries: the iterator must hold them.
  Iterator it = range_dataset(2).map([](const Element& e) { return e; }).iterator();
  EXPECT_EQ(it.next()->at(0).item<int64_t>(), 0);
  EXPECT_EQ(it.next()->at(0).item<int64_t>(), 1);
  EXPECT_FALSE(it.next().has_value());
  EXPECT_FALSE(it.next().has_value());
}

}  // namespace
}  // namespace kiln::datasets::testing
