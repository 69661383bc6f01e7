// padded_batch and bucket_by_sequence_length on sequences of known lengths.
#include <gmock/gmock.h>

#include <set>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

// Element i: (sequence [lengths[i]] filled with i + 1, label i).
Dataset sequences(const std::vector<int64_t>& lengths) {
  std::vector<Element> elements;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const auto value = static_cast<double>(i + 1);
    elements.push_back(
        {full(Shape({lengths[i]}), value, DType::i32), scalar(static_cast<double>(i), DType::i64)});
  }
  return Dataset::from_elements(std::move(elements));
}

TEST(PaddedBatch, PadsEachBatchToItsLongestAfterTheData) {
  Iterator it = sequences({2, 3, 1, 1}).padded_batch(2).iterator();
  const Element first = *it.next();
  EXPECT_EQ(first[0].shape(), Shape({2, 3}));
  EXPECT_EQ(first[0].dtype(), DType::i32);
  EXPECT_EQ(first[0].to_vector<int32_t>(), (std::vector<int32_t>{1, 1, 0, 2, 2, 2}));
  EXPECT_EQ(first[1].to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  const Element second = *it.next();
  EXPECT_EQ(second[0].shape(), Shape({2, 1}));
  EXPECT_FALSE(it.next().has_value());
}

TEST(PaddedBatch, FixedShapesValuesAndTheRemainder) {
  const PaddingSpec spec{.padded_shapes = {{4}, {}}, .padding_values = {-1, 0}};
  const auto all = batches(sequences({2, 3, 1}).padded_batch(2, spec));
  EXPECT_EQ(all, (std::vector<std::vector<int64_t>>{{1, 1, -1, -1, 2, 2, 2, -1}, {3, -1, -1, -1}}));
  EXPECT_EQ(batches(sequences({2, 3, 1}).padded_batch(2, spec, /*drop_remainder=*/true)).size(),
            1u);
  EXPECT_EQ(sequences({2, 3, 1}).padded_batch(2).cardinality(), 2);
}

TEST(PaddedBatch, PadsEveryAxisOfMatrices) {
  std::vector<Element> elements{{arange(0, 2, 1, DType::f32).view({1, 2})},
                                {arange(0, 3, 1, DType::f32).view({3, 1})}};
  const Element b = *Dataset::from_elements(elements).padded_batch(2).iterator().next();
  EXPECT_EQ(b[0].shape(), Shape({2, 3, 2}));
  EXPECT_EQ(b[0].to_vector<float>(), (std::vector<float>{0, 1, 0, 0, 0, 0, /**/ 0, 0, 1, 0, 2, 0}));
}

TEST(PaddedBatch, ErrorsNameTheComponentAndShapes) {
  const PaddingSpec too_short{.padded_shapes = {{2}, {}}};
  EXPECT_THAT(error_of([&] { (void)batches(sequences({3}).padded_batch(1, too_short)); }),
              HasSubstr("component 0 of element 0 is int32[3], longer than its padded shape [2]"));
  std::vector<Element> mixed{{zeros({2})}, {zeros({2, 2})}};
  EXPECT_THAT(error_of([&] { (void)batches(Dataset::from_elements(mixed).padded_batch(2)); }),
              HasSubstr("padding needs one rank and dtype per component"));
}

// Lengths 1..40 in a shuffled order: 3 buckets [0, 10), [10, 20), [20, inf).
std::vector<int64_t> many_lengths() {
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < 40; ++i) lengths.push_back((i * 17) % 40 + 1);
  return lengths;
}

TEST(BucketBySequenceLength, BatchesHoldOneBucketEach) {
  const Dataset ds =
      sequences(many_lengths()).bucket_by_sequence_length(nullptr, {10, 20}, {4, 4, 4});
  int64_t total = 0;
  for (Iterator it = ds.iterator(); std::optional<Element> b = it.next();) {
    const int64_t width = (*b)[0].dim(1);
    // Every row of the batch has its length in the bucket of the batch's longest.
    const int64_t lo = width < 10 ? 0 : width < 20 ? 10 : 20;
    const std::vector<int32_t> v = (*b)[0].to_vector<int32_t>();
    for (int64_t r = 0; r < (*b)[0].dim(0); ++r) {
      int64_t length = 0;
      while (length < width && v[static_cast<size_t>(r * width + length)] != 0) ++length;
      EXPECT_GE(length, std::max<int64_t>(lo, 1));
      EXPECT_LE(length, width);
    }
    total += (*b)[0].dim(0);
  }
  EXPECT_EQ(total, 40);
}

TEST(BucketBySequenceLength, PaddingToTheBoundaryBoundsTheShapes) {
  const Dataset ds = sequences(many_lengths())
                         .bucket_by_sequence_length(nullptr, {10, 20, 41}, {3, 3, 3, 3},
                                                    {.pad_to_bucket_boundary = true});
  std::set<int64_t> widths;
  int64_t total = 0;
  for (Iterator it = ds.iterator(); std::optional<Element> b = it.next();) {
    widths.insert((*b)[0].dim(1));
    total += (*b)[0].dim(0);
  }
  EXPECT_EQ(widths, (std::set<int64_t>{9, 19, 40}));
  EXPECT_EQ(total, 40);
}

TEST(BucketBySequenceLength, DropRemainderKeepsOnlyFullBatches) {
  const Dataset ds =
      sequences(many_lengths())
          .bucket_by_sequence_length(nullptr, {10, 20}, {4, 4, 4}, {.drop_remainder = true});
  // Buckets hold 9, 10 and 21 elements: 2 + 2 + 5 full batches.
  int64_t full_batches = 0;
  for (Iterator it = ds.iterator(); std::optional<Element> b = it.next();) {
    EXPECT_EQ((*b)[0].dim(0), 4);
    ++full_batches;
  }
  EXPECT_EQ(full_batches, 9);
}

TEST(BucketBySequenceLength, ACustomLengthFunction) {
  // Bucket by the label instead: labels 0..5 with boundary 3 split them 3 / 3.
  const Dataset ds = sequences({5, 5, 5, 5, 5, 5})
                         .bucket_by_sequence_length(
                             [](const Element& e) { return e[1].item<int64_t>(); }, {3}, {3, 3});
  std::vector<std::vector<int64_t>> labels;
  for (Iterator it = ds.iterator(); std::optional<Element> b = it.next();)
    labels.push_back((*b)[1].to_vector<int64_t>());
  EXPECT_EQ(labels, (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}}));
}

TEST(BucketBySequenceLength, ErrorsNameTheProblem) {
  EXPECT_THAT(error_of([] { (void)sequences({1}).bucket_by_sequence_length(nullptr, {10}, {4}); }),
              HasSubstr("1 boundaries make 2 buckets, but 1 batch sizes were given"));
  EXPECT_THAT(error_of([] {
                (void)sequences({1}).bucket_by_sequence_length(nullptr, {10, 5}, {1, 1, 1});
              }),
              HasSubstr("boundaries must be positive and increasing"));
  const Dataset too_long = sequences({12}).bucket_by_sequence_length(
      nullptr, {10}, {1, 1}, {.pad_to_bucket_boundary = true});
  EXPECT_THAT(error_of([&] { (void)batches(too_long); }),
              HasSubstr("an element of length 12 (int32[12], int64[]) is not below the last "
                        "bucket boundary 10"));
}

}  // namespace
}  // namespace kiln::datasets::testing
