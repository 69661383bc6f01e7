// pad_sequences: Keras's padding and truncating sides, values, dtypes and feature axes.
#include "kiln/datasets/text/pad_sequences.h"

#include <gmock/gmock.h>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

const std::vector<std::vector<int64_t>> kSequences{{1, 2, 3}, {4}, {5, 6}};

TEST(PadSequences, PrePaddingToTheLongestByDefault) {
  const Tensor t = pad_sequences(kSequences);
  EXPECT_EQ(t.shape(), Shape({3, 3}));
  EXPECT_EQ(t.dtype(), DType::i32);
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 0, 0, 4, 0, 5, 6}));
}

TEST(PadSequences, SidesMaxlenValueAndDtype) {
  EXPECT_EQ(pad_sequences(kSequences, {.maxlen = 2}).to_vector<int32_t>(),
            (std::vector<int32_t>{2, 3, 0, 4, 5, 6}));
  EXPECT_EQ(
      pad_sequences(kSequences, {.maxlen = 2, .truncating = PadSide::post}).to_vector<int32_t>(),
      (std::vector<int32_t>{1, 2, 0, 4, 5, 6}));
  EXPECT_EQ(pad_sequences(kSequences, {.maxlen = 4, .padding = PadSide::post, .value = -1})
                .to_vector<int32_t>(),
            (std::vector<int32_t>{1, 2, 3, -1, 4, -1, -1, -1, 5, 6, -1, -1}));
  const Tensor f = pad_sequences(kSequences, {.dtype = DType::f32});
  EXPECT_EQ(f.dtype(), DType::f32);
  EXPECT_EQ(f.to_vector<float>()[2], 3.0f);
  EXPECT_EQ(pad_sequences(kSequences, {.maxlen = 0}).shape(), Shape({3, 0}));
}

TEST(PadSequences, SequencesOfFeatureVectors) {
  const std::vector<Tensor> seqs{arange(0, 4, 1, DType::f32).view({2, 2}),
                                 arange(4, 6, 1, DType::f32).view({1, 2})};
  const Tensor t = pad_sequences(seqs, {.padding = PadSide::post, .dtype = DType::f32});
  EXPECT_EQ(t.shape(), Shape({2, 2, 2}));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 0, 0}));
  const std::vector<Tensor> mixed{zeros({2, 2}), zeros({2, 3})};
  EXPECT_THAT(error_of([&] { (void)pad_sequences(mixed); }),
              HasSubstr("sequence 1 is [2, 3] but sequence 0 is [2, 2]"));
}

}  // namespace
}  // namespace kiln::datasets::testing
