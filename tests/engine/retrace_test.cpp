// The retrace scenarios the engine must get right: counts of traces and plans per call pattern.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/engine/function/function.h"
#include "kiln/framework/ops/ops.h"
#include "tests/engine/log_capture.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using testing::LogCapture;

Tensor filled(const Shape& shape, DType dtype = DType::f32) {
  return ops::cast(arange(0.0, static_cast<double>(shape.numel()), 1.0, DType::f32), dtype)
      .clone()
      .view(shape);
}

auto row_sums() {
  return [](const Tensor& x) { return ops::sum(x * 2.0, {1}); };
}

TEST(Retrace, NewShapeWithoutSignatureTracesAgain) {
  auto f = function(row_sums());
  f(filled({10, 20}));
  f(filled({10, 21}));
  f(filled({10, 20}));
  EXPECT_EQ(f.stats().traces, 2);
  EXPECT_EQ(f.stats().plans, 2);
  EXPECT_EQ(f.stats().cache_hits, 1);
}

// The plans of every shape take turns in one arena that grows to the largest: a small shape's
// plan still runs right after a larger one replaced the arena, and before it was made.
TEST(Retrace, PlansOfManyShapesShareOneArena) {
  auto f = function([](const Tensor& x) { return ops::sum(ops::exp(x * 0.001) * 2.0 + x, {1}); },
                    {.input_signature = std::vector{TensorSpec({-1, -1})}});
  for (int64_t cols : {4, 4096, 4, 64, 4096}) {
    const Tensor x = filled({3, cols});
    const Tensor want = ops::sum(ops::exp(x * 0.001) * 2.0 + x, {1});
    const std::vector<float> got = f(x).to_vector<float>();
    const std::vector<float> expected = want.to_vector<float>();
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_FLOAT_EQ(got[i], expected[i]) << "cols " << cols << " row " << i;
  }
  EXPECT_EQ(f.stats().plans, 3);
  size_t largest = 0, total = 0;
  for (const engine::PlanStats& p : f.plan_stats()) {
    largest = std::max(largest, p.arena_bytes);
    total += p.arena_bytes;
  }
  EXPECT_EQ(f.stats().arena_bytes, largest);
  EXPECT_LT(f.stats().arena_bytes, total);
}

TEST(Retrace, SignatureWithUnknownDimsTracesOnce) {
  auto f = function(row_sums(), {.input_signature = std::vector{TensorSpec({-1, -1})}});
  for (int64_t rows : {10, 3, 7})
    for (int64_t cols : {20, 21, 1}) {
      const Tensor y = f(filled({rows, cols}));
      EXPECT_EQ(y.shape(), Shape({rows}));
      EXPECT_EQ(y.to_vector<float>(), ops::sum(filled({rows, cols}) * 2.0, {1}).to_vector<float>());
    }
  EXPECT_EQ(f.stats().traces, 1);
  EXPECT_EQ(f.stats().plans, 9);  // one cheap plan per concrete shape
  EXPECT_THAT(f.concrete_signatures()[0], HasSubstr("arg0: float32[?, ?]"));
}

TEST(Retrace, SignatureMismatchNamesArgumentSpecAndShape) {
  auto f = function(
      row_sums(),
      {.name = "rows", .input_signature = std::vector{TensorSpec({-1, 20})}, .arg_names = {"x"}});
  try {
    f(filled({4, 3}));
    FAIL() << "expected a signature error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("function 'rows'"));
    EXPECT_THAT(e.what(), HasSubstr("argument x has shape [4, 3]"));
    EXPECT_THAT(e.what(), HasSubstr("TensorSpec(shape=[?, 20], dtype=float32)"));
  }
}

TEST(Retrace, ReduceRetracingGeneralizesTheChangedDims) {
  auto f = function(row_sums(), {.reduce_retracing = true});
  f(filled({10, 20}));
  f(filled({10, 21}));
  for (int64_t cols : {5, 6, 7, 30}) f(filled({10, cols}));
  EXPECT_EQ(f.stats().traces, 2);
  EXPECT_THAT(f.concrete_signatures()[1], HasSubstr("float32[10, ?]"));
}

TEST(Retrace, StaticArgumentRetracesPerValueTensorDoesNot) {
  LogCapture logs;
  auto scaled =
      function([](const Tensor& x, int factor) { return x * static_cast<double>(factor); },
               {.name = "scaled", .arg_names = {"x", "factor"}});
  const Tensor x = filled({3});
  EXPECT_EQ(scaled(x, 2).to_vector<float>(), (std::vector<float>{0, 2, 4}));
  EXPECT_EQ(scaled(x, 3).to_vector<float>(), (std::vector<float>{0, 3, 6}));
  EXPECT_EQ(scaled.stats().traces, 2);
  const auto debug = logs.at(LogLevel::debug);
  ASSERT_FALSE(debug.empty());
  EXPECT_THAT(debug.back(), HasSubstr("static argument factor changed 2 -> 3"));
  EXPECT_THAT(debug.back(), HasSubstr("pass it as a tensor"));

  auto scaled_by_tensor =
      function([](const Tensor& v, const Tensor& factor) { return v * factor; });
  EXPECT_EQ(scaled_by_tensor(x, scalar(2)).to_vector<float>(), (std::vector<float>{0, 2, 4}));
  EXPECT_EQ(scaled_by_tensor(x, scalar(3)).to_vector<float>(), (std::vector<float>{0, 3, 6}));
  EXPECT_EQ(scaled_by_tensor.stats().traces, 1);
  EXPECT_EQ(scaled_by_tensor.stats().cache_hits, 1);
}

TEST(Retrace, IntegerInputsAgainstFloatSpecAreCastNotRetraced) {
  LogCapture logs;
  auto f =
      function(row_sums(), {.name = "labels", .input_signature = std::vector{TensorSpec({-1, 2})}});
  const Tensor a = f(filled({2, 2}, DType::i32));
  const Tensor b = f(filled({2, 2}, DType::i64));
  EXPECT_EQ(a.dtype(), DType::f32);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{2, 10}));
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{2, 10}));
  EXPECT_EQ(f.stats().traces, 1);
  f(filled({2, 2}, DType::i32));
  int cast_notes = 0;
  for (const auto& m : logs.at(LogLevel::info))
    cast_notes += m.find("is cast to float32") != std::string::npos;
  EXPECT_EQ(cast_notes, 2);  // once per source dtype, not per call
}

TEST(Retrace, LossyBoundaryCastIsAnError) {
  auto f = function(row_sums(), {.input_signature = std::vector{TensorSpec({-1, 2}, DType::i32)}});
  EXPECT_THROW(
      {
        try {
          f(filled({2, 2}, DType::f32));
        } catch (const Error& e) {
          EXPECT_THAT(e.what(), HasSubstr("would truncate values"));
          throw;
        }
      },
      Error);
  auto strict = function(row_sums(), {.input_signature = std::vector{TensorSpec({-1, 2})},
                                      .allow_float_narrowing = false});
  EXPECT_THROW(strict(filled({2, 2}, DType::f64)), Error);
  auto lenient = function(row_sums(), {.input_signature = std::vector{TensorSpec({-1, 2})}});
  EXPECT_EQ(lenient(filled({2, 2}, DType::f64)).dtype(), DType::f32);
}

TEST(Retrace, WarningFollowsTheFiveOfTenRuleAndNamesTheDim) {
  LogCapture logs;
  auto f = function(row_sums(), {.name = "predict", .arg_names = {"x"}});
  for (int64_t rows = 1; rows <= 4; ++rows) f(filled({rows, 3}));
  EXPECT_TRUE(logs.at(LogLevel::warning).empty());  // 4 of 4 traced: below the rule
  f(filled({5, 3}));
  ASSERT_EQ(logs.at(LogLevel::warning).size(), 1u);
  const std::string warning = logs.at(LogLevel::warning)[0];
  EXPECT_THAT(warning, HasSubstr("5 of the last 5 calls traced"));
  EXPECT_THAT(warning, HasSubstr("x dim 0 changed 4 -> 5"));
  EXPECT_THAT(warning, HasSubstr("TensorSpec(shape=[?, 3], dtype=float32)"));
  for (int64_t rows = 6; rows <= 12; ++rows) f(filled({rows, 3}));
  EXPECT_EQ(logs.at(LogLevel::warning).size(), 2u);  // at most twice per function
  EXPECT_EQ(f.stats().retrace_warnings, 2);
}

TEST(Retrace, HitsDoNotCountTowardTheWarning) {
  LogCapture logs;
  auto f = function(row_sums());
  for (int64_t rows = 1; rows <= 4; ++rows) f(filled({rows, 3}));
  for (int i = 0; i < 6; ++i) f(filled({1, 3}));
  f(filled({9, 3}));  // 1 of the last 10 traced... plus earlier ones fell out of the window
  EXPECT_TRUE(logs.at(LogLevel::warning).empty());
}

}  // namespace
}  // namespace kiln
