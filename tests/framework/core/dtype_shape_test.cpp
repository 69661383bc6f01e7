#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/core/device.h"
#include "kiln/framework/core/dtype.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/shape.h"

namespace kiln {
namespace {

TEST(DType, PromotionFollowsTheLattice) {
  EXPECT_EQ(promote_types(DType::i32, DType::f32), DType::f32);
  EXPECT_EQ(promote_types(DType::boolean, DType::u8), DType::u8);
  EXPECT_EQ(promote_types(DType::u8, DType::i64), DType::i64);
  EXPECT_EQ(promote_types(DType::i64, DType::f16), DType::f16);
  EXPECT_EQ(promote_types(DType::f16, DType::bf16), DType::f32);
  EXPECT_EQ(promote_types(DType::f32, DType::f64), DType::f64);
  EXPECT_EQ(promote_types(DType::bf16, DType::bf16), DType::bf16);
}

TEST(DType, NamesRoundTrip) {
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64,
                  DType::u8, DType::boolean})
    EXPECT_EQ(dtype_from_name(dtype_name(d)), d);
  EXPECT_THROW(dtype_from_name("float128"), Error);
}

TEST(Half, ConvertsWithRounding) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(static_cast<float>(float16(v)), v) << v;
  EXPECT_TRUE(std::isinf(static_cast<float>(float16(1e6f))));
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f)), 1.0f);
  EXPECT_EQ(static_cast<float>(bfloat16(3.0f)), 3.0f);
  EXPECT_NEAR(static_cast<float>(bfloat16(0.1f)), 0.1f, 1e-3f);
}

TEST(Shape, UnknownDims) {
  const Shape s{-1, 3};
  EXPECT_FALSE(s.is_fully_defined());
  EXPECT_EQ(s.numel(), -1);
  EXPECT_EQ(s.to_string(), "[?, 3]");
  EXPECT_EQ((Shape{2, 3, 4}).strides(), (std::vector<int64_t>{12, 4, 1}));
}

// An .npy header's (the arrays fuzzer's find): rows read from an empty array whose other dims
// multiply past int64.
TEST(Shape, AnEmptyAxisEmptiesAShapeWhateverTheOtherDims) {
  EXPECT_EQ(Shape({4096, 6059830752943946, 0}).numel(), 0);
  EXPECT_EQ(Shape({0, -1}).numel(), -1);
}

TEST(Shape, BroadcastsLikeNumPy) {
  EXPECT_EQ(broadcast_shapes({2, 1, 4}, {3, 1}), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({}, {5}), (Shape{5}));
  EXPECT_EQ(broadcast_shapes({-1, 4}, {1, 4}), (Shape{-1, 4}));
  EXPECT_EQ(broadcast_shapes({-1, 4}, {7, 4}), (Shape{7, 4}));
  EXPECT_THROW(broadcast_shapes({2, 3}, {4}), ShapeError);
}

TEST(Shape, NormalizesAxes) {
  EXPECT_EQ(normalize_axis(-1, 3), 2);
  EXPECT_THROW(normalize_axis(3, 3), ShapeError);
  EXPECT_EQ(normalize_axes({-1, 0, 2}, 3), (std::vector<int>{0, 2}));
  EXPECT_EQ(normalize_axes({}, 2), (std::vector<int>{0, 1}));
}

TEST(Device, Parses) {
  EXPECT_EQ(Device::parse("cpu"), Device::cpu());
  EXPECT_EQ(Device::parse("cuda:1"), Device::cuda(1));
  EXPECT_EQ(Device::cuda(2).to_string(), "cuda:2");
  EXPECT_THROW(Device::parse("tpu"), Error);
}

}  // namespace
}  // namespace kiln
