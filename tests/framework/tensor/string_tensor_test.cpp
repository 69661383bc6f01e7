// DType::string: host tensors of std::string that the text preprocessing layers read. They copy,
// view and print like other tensors; ops and devices refuse them by name.
#include <gtest/gtest.h>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

std::vector<std::string> values_of(const Tensor& t) {
  const std::string* p = t.data<std::string>();
  return {p, p + t.numel()};
}

TEST(StringTensor, HoldsStringsAndDeepCopiesOnClone) {
  const std::vector<std::string> words{"the", "", std::string(100, 'x'), "naïve"};
  Tensor t = strings(words, Shape{2, 2});
  EXPECT_EQ(t.dtype(), DType::string);
  EXPECT_EQ(dtype_name(t.dtype()), "string");
  EXPECT_EQ(values_of(t), words);
  Tensor copy = t.clone();
  t.data<std::string>()[0] = "changed";
  EXPECT_EQ(values_of(copy), words);
  EXPECT_EQ(values_of(t.view(Shape{2}, 2)), (std::vector<std::string>{words[2], words[3]}));
}

TEST(StringTensor, PrintsQuotedValues) {
  EXPECT_EQ(strings(std::vector<std::string>{"a b", "c\"d"}).to_string(),
            "Tensor([\"a b\", \"c\\\"d\"], shape=[2], dtype=string)");
}

TEST(StringTensor, OpsAndDevicesRefuseStrings) {
  const Tensor t = strings(std::vector<std::string>{"a"});
  try {
    (void)ops::add(t, t);
    FAIL() << "add of strings ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TextVectorization"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)t.to(Device::cuda(0)), Error);
  EXPECT_THROW((void)promote_types(DType::string, DType::f32), Error);
  EXPECT_FALSE(is_integral(DType::string));
}

}  // namespace
}  // namespace kiln
