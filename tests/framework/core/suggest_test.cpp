#include <gtest/gtest.h>

#include "kiln/framework/core/suggest.h"

namespace kiln {
namespace {

TEST(Suggest, EditDistanceIgnoresCase) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("Dense", "dense"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Suggest, OnlyTheClosestNamesAndNothingWhenFar) {
  const std::vector<std::string> names{"relu", "selu", "elu", "gelu", "softmax"};
  EXPECT_EQ(closest_names("rellu", names), (std::vector<std::string>{"relu"}));
  EXPECT_EQ(closest_names("xelu", names), (std::vector<std::string>{"relu", "selu", "elu"}));
  EXPECT_EQ(closest_names("xelu", names, 2), (std::vector<std::string>{"relu", "selu"}));
  EXPECT_EQ(did_you_mean("softmaxx", names), "did you mean 'softmax'?");
  EXPECT_EQ(did_you_mean("convolution", names), "");
}

}  // namespace
}  // namespace kiln
