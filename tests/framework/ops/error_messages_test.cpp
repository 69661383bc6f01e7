// Bad input raises errors that name the op, the operands' shapes and dtypes.
#include <gtest/gtest.h>

#include <functional>

#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    FAIL() << "expected an error containing " << parts[0];
  } catch (const Error& e) {
    for (const std::string& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "'" << p << "' missing from: " << e.what();
  }
}

TEST(ErrorMessages, MismatchedShapes) {
  expect_error(
      [] {
        (void)(zeros({2, 3}) + zeros({4}));
      },
      {"kiln::ops::add", "[2, 3]", "[4]", "cannot be broadcast"});
  expect_error(
      [] {
        (void)ops::concat({zeros({2, 3}), zeros({2, 4})}, 0);
      },
      {"kiln::ops::concat", "float32[2, 3]", "float32[2, 4]"});
  expect_error(
      [] {
        (void)ops::reshape(zeros({2, 3}), {4, 2});
      },
      {"kiln::ops::reshape", "cannot reshape [2, 3]", "[4, 2]"});
  expect_error(
      [] {
        (void)ops::gather(zeros({2, 3}), zeros({2}), 0);
      },
      {"kiln::ops::gather", "indices must be int32 or int64", "float32[2]"});
}

TEST(ErrorMessages, WrongDtypes) {
  expect_error([] { (void)ops::exp(zeros({2}, DType::i32)); },
               {"kiln::ops::exp", "floating", "int32[2]"});
  expect_error(
      [] {
        (void)ops::matmul(zeros({2, 2}, DType::i64), zeros({2, 2}, DType::i64));
      },
      {"kiln::ops::matmul", "int64[2, 2]"});
}

TEST(ErrorMessages, OutOfRangeAxes) {
  expect_error(
      [] {
        (void)ops::sum(zeros({2, 3}), {2});
      },
      {"kiln::ops::sum", "axis 2 is out of range for rank 2", "float32[2, 3]"});
  expect_error(
      [] {
        (void)ops::argmax(zeros({2, 3}), -3);
      },
      {"kiln::ops::argmax", "axis -3", "float32[2, 3]"});
  expect_error(
      [] {
        (void)ops::transpose(zeros({2, 3}), {0, 0});
      },
      {"kiln::ops::transpose", "not a permutation", "float32[2, 3]"});
  expect_error([] { (void)ops::expand_dims(zeros({2}), 3); }, {"expand_dims", "axis 3"});
  expect_error([] { (void)ops::squeeze(zeros({2, 3}), {0}); }, {"squeeze", "not of size 1"});
}

TEST(ErrorMessages, UnknownDimsInferWithoutKernels) {
  // Inference runs on unknown dims (tracing): the dispatcher's infer_meta is all it needs.
  const TensorMeta a{DType::f32, Shape{-1, 3}, {}};
  const TensorMeta b{DType::f32, Shape{3, 5}, {}};
  const TensorMeta out = infer_meta(OpId::matmul, std::vector<TensorMeta>{a, b},
                                    {{"transpose_a", false}, {"transpose_b", false}});
  EXPECT_EQ(out.shape, (Shape{-1, 5}));
  const TensorMeta s = infer_meta(OpId::reduce_sum, std::vector<TensorMeta>{a},
                                  {{"axes", std::vector<int64_t>{1}}, {"keepdims", true}});
  EXPECT_EQ(s.shape, (Shape{-1, 1}));
  const TensorMeta r =
      infer_meta(OpId::reshape, std::vector<TensorMeta>{a}, {{"shape", std::vector<int64_t>{-1}}});
  EXPECT_EQ(r.shape, (Shape{-1}));
}

}  // namespace
}  // namespace kiln
