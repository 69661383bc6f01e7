// Named op attributes: an attribute written through its key reads back in its type, and the key
// stands for its name wherever Attrs takes one (a misspelt key does not compile).
#include <gtest/gtest.h>

#include <type_traits>

#include "kiln/framework/ops/attrs.h"

namespace kiln {
namespace {

TEST(AttrKeys, ReadBackInTheirTypes) {
  Attrs attrs{{attr::axis, int64_t{2}}, {attr::keepdims, true}};
  attrs.set(attr::d_begin, std::vector<int64_t>{0, 3});
  static_assert(std::is_same_v<decltype(attrs.get(attr::axis)), const int64_t&>);
  static_assert(std::is_same_v<decltype(attrs.get(attr::d_begin)), const std::vector<int64_t>&>);
  EXPECT_EQ(attrs.get(attr::axis), 2);
  EXPECT_TRUE(attrs.get(attr::keepdims));
  EXPECT_EQ(attrs.get(attr::d_begin), (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(attrs.has(attr::d_begin));
  EXPECT_FALSE(attrs.has(attr::d_end));
  // The same attribute by its name, as printed graphs and tests write it.
  EXPECT_EQ(attrs.get_int("axis"), 2);
  EXPECT_EQ(attrs.to_string(), "axis=2, keepdims=true, d_begin=[0, 3]");
}

}  // namespace
}  // namespace kiln
