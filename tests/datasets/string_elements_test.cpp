// Datasets carry string components (text sources) through slicing, shuffling and batching;
// padding refuses them.
#include <gtest/gtest.h>

#include <algorithm>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

std::vector<std::string> values_of(const Tensor& t) {
  const std::string* p = t.data<std::string>();
  return {p, p + t.numel()};
}

TEST(StringElements, SliceShuffleAndBatch) {
  const std::vector<std::string> texts{"one", "two", "three", "four", "five"};
  const auto dataset = Dataset::from_tensor_slices(
      {strings(texts), from_vector(std::vector<int64_t>{1, 2, 3, 4, 5}, Shape{5})});
  std::vector<std::string> seen;
  for (const auto& batch : dataset.batch(2)) {
    ASSERT_EQ(batch[0].dtype(), DType::string);
    for (const std::string& s : values_of(batch[0])) seen.push_back(s);
  }
  EXPECT_EQ(seen, texts);
  seen.clear();
  for (const auto& batch : dataset.shuffle(5, 7).batch(5)) seen = values_of(batch[0]);
  std::sort(seen.begin(), seen.end());
  std::vector<std::string> sorted = texts;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(seen, sorted);
  EXPECT_THROW(for (const auto& b : dataset.padded_batch(2))(void) b, Error);
}

}  // namespace
}  // namespace kiln::datasets
