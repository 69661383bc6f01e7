// Binary ops: broadcasting, dtype promotion, values and float64 gradient checks.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;

struct BinaryCase {
  const char* name;
  BinaryFn op;
  std::function<double(double, double)> reference;
  double lo, hi;
};

// ctest shows the case's name, not its bytes.
void PrintTo(const BinaryCase& c, std::ostream* os) {
  *os << c.name;
}

// Picks the Tensor-with-Tensor overload.
BinaryFn tensors(Tensor (*fn)(const Tensor&, const Tensor&)) {
  return fn;
}

std::vector<BinaryCase> arithmetic_cases() {
  return {
      {"add", tensors(ops::add), [](double a, double b) { return a + b; }, -2, 2},
      {"sub", tensors(ops::sub), [](double a, double b) { return a - b; }, -2, 2},
      {"mul", tensors(ops::mul), [](double a, double b) { return a * b; }, -2, 2},
      {"div", tensors(ops::div), [](double a, double b) { return a / b; }, 0.5, 2},
      {"pow", tensors(ops::pow), [](double a, double b) { return std::pow(a, b); }, 0.5, 2},
      {"maximum", tensors(ops::maximum), [](double a, double b) { return std::max(a, b); }, -2, 2},
      {"minimum", tensors(ops::minimum), [](double a, double b) { return std::min(a, b); }, -2, 2},
  };
}

// Shape pairs that cover the broadcast loops: same shape, scalar either side, a row, a column,
// a middle axis and rank extension.
const std::vector<std::pair<Shape, Shape>> kBroadcastPairs = {
    {{4, 5}, {4, 5}}, {{4, 5}, {}},        {{}, {4, 5}},           {{4, 5}, {5}},
    {{4, 1}, {1, 5}}, {{2, 3, 4}, {3, 1}}, {{2, 1, 4}, {2, 3, 1}},
};

double at(const std::vector<double>& v, const Shape& s, const Shape& out, int64_t flat) {
  // Index of output element `flat` in an operand of shape s broadcast to out.
  int64_t offset = 0, stride = 1;
  for (int i = out.rank() - 1; i >= 0; --i) {
    const int64_t idx = flat % out[i];
    flat /= out[i];
    const int j = i - (out.rank() - s.rank());
    if (j >= 0) {
      if (s[j] != 1) offset += idx * stride;
      stride *= s[j];
    }
  }
  return v[static_cast<size_t>(offset)];
}

class BinaryOp : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryOp, BroadcastsAndMatchesReference) {
  const BinaryCase& c = GetParam();
  for (const auto& [sa, sb] : kBroadcastPairs) {
    const Tensor a = testing::random_f64(sa, c.lo, c.hi, 1);
    const Tensor b = testing::random_f64(sb, c.lo, c.hi, 2);
    const Tensor y = c.op(a, b);
    const Shape out = broadcast_shapes(sa, sb);
    ASSERT_EQ(y.shape(), out);
    const auto va = a.to_vector<double>(), vb = b.to_vector<double>(), vy = y.to_vector<double>();
    for (int64_t i = 0; i < out.numel(); ++i)
      ASSERT_NEAR(vy[static_cast<size_t>(i)], c.reference(at(va, sa, out, i), at(vb, sb, out, i)),
                  1e-12)
          << c.name << " " << sa << " " << sb << " element " << i;
  }
}

TEST_P(BinaryOp, GradientMatchesFiniteDifferences) {
  const BinaryCase& c = GetParam();
  for (const auto& [sa, sb] : kBroadcastPairs) {
    // Distinct ranges keep maximum/minimum away from ties.
    const Tensor a = testing::random_f64(sa, c.lo, c.hi, 3);
    const Tensor b = testing::random_f64(sb, c.lo, c.hi, 4);
    testing::expect_gradients_match(
        [&](const std::vector<Tensor>& in) { return c.op(in[0], in[1]); }, {a, b},
        testing::GradCheckOptions::nonsmooth());
  }
}

INSTANTIATE_TEST_SUITE_P(All, BinaryOp, ::testing::ValuesIn(arithmetic_cases()),
                         [](const auto& test) { return std::string(test.param.name); });

TEST(BinaryOps, LargeBroadcastUsesAllThreadsCorrectly) {
  const Tensor a = testing::random_f64({300, 257});
  const Tensor b = testing::random_f64({257});
  const auto y = (a + b).to_vector<double>();
  const auto va = a.to_vector<double>(), vb = b.to_vector<double>();
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], va[i] + vb[i % 257]);
}

TEST(BinaryOps, PromotesDtypes) {
  const Tensor i = from_vector<int32_t>(std::vector<int32_t>{1, 2}, {2});
  const Tensor f = tensor({0.5f, 0.25f});
  EXPECT_EQ((i + f).dtype(), DType::f32);
  EXPECT_EQ((i + f).to_vector<float>(), (std::vector<float>{1.5f, 2.25f}));
  EXPECT_EQ(ops::add(f, ops::cast(f, DType::f64)).dtype(), DType::f64);
  // A number takes the tensor's dtype.
  EXPECT_EQ((i * 2.0).dtype(), DType::i32);
  EXPECT_EQ((i * 2.0).to_vector<int32_t>(), (std::vector<int32_t>{2, 4}));
  EXPECT_EQ((1.0 - f).to_vector<float>(), (std::vector<float>{0.5f, 0.75f}));
  EXPECT_EQ((1.0 / f).to_vector<float>(), (std::vector<float>{2, 4}));
}

TEST(BinaryOps, IntegerPowersAreExact) {
  const Tensor base = from_vector<int64_t>(std::vector<int64_t>{3, -2, 7, 1, -1, 2}, {6});
  const Tensor exponent = from_vector<int64_t>(std::vector<int64_t>{3, 3, 0, -4, -3, -1}, {6});
  EXPECT_EQ(ops::pow(base, exponent).to_vector<int64_t>(),
            (std::vector<int64_t>{27, -8, 1, 1, -1, 0}));
  const Tensor big = from_vector<int64_t>(std::vector<int64_t>{3}, {1});
  EXPECT_EQ(ops::pow(big, 39.0).item<int64_t>(), 4052555153018976267);
}

TEST(BinaryOps, ComparisonsAndLogic) {
  const Tensor a = tensor({1, 2, 3});
  const Tensor b = tensor({2, 2, 2});
  EXPECT_EQ(ops::less(a, b).to_vector<bool>(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(ops::less_equal(a, b).to_vector<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(ops::greater(a, b).to_vector<bool>(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(ops::greater_equal(a, b).to_vector<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(ops::equal(a, b).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(ops::not_equal(a, b).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  const Tensor p = ops::less(a, b), q = ops::greater(a, b);
  EXPECT_EQ(ops::logical_or(p, q).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(ops::logical_and(p, ops::logical_not(q)).to_vector<bool>(),
            (std::vector<bool>{true, false, false}));
  EXPECT_EQ(ops::less(a, b).dtype(), DType::boolean);
}

TEST(BinaryOps, MaximumPropagatesNaN) {
  const Tensor a = tensor({NAN, 1});
  const Tensor b = tensor({0, NAN});
  const auto m = ops::maximum(a, b).to_vector<float>();
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_TRUE(std::isnan(m[1]));
}

TEST(BinaryOps, WhereAndClip) {
  const Tensor cond = ops::greater(tensor({1, -1, 2}), 0.0);
  EXPECT_EQ(ops::where(cond, tensor({10, 20, 30}), tensor({0})).to_vector<float>(),
            (std::vector<float>{10, 0, 30}));
  EXPECT_EQ(ops::clip(tensor({-5, 0.5, 5}), -1, 1).to_vector<float>(),
            (std::vector<float>{-1, 0.5, 1}));
  const Tensor a = testing::random_f64({3, 4}, -1, 1, 5);
  const Tensor b = testing::random_f64({4}, -1, 1, 6);
  const Tensor c = ops::greater(testing::random_f64({3, 1}, -1, 1, 7), 0.0);
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) { return ops::where(c, in[0], in[1]); }, {a, b});
  testing::expect_gradients_match(
      [](const std::vector<Tensor>& in) { return ops::clip(in[0], -0.5, 0.5); },
      {from_vector(std::vector<double>{-0.9, -0.2, 0.3, 0.8}, {4})},
      testing::GradCheckOptions::nonsmooth());
}

}  // namespace
}  // namespace kiln
