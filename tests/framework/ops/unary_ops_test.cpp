// Every unary op: values against <cmath> in float32 and float64, and a float64 gradient check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> op;
  std::function<double(double)> reference;
  double lo, hi;               // input range for both checks
  bool smooth;                 // false: nonsmooth gradient tolerance, inputs kept off the kink
  bool differentiable = true;  // sign has no gradient
};

// ctest shows the case's name, not its bytes.
void PrintTo(const UnaryCase& c, std::ostream* os) {
  *os << c.name;
}

double sigmoid_ref(double x) {
  return 1 / (1 + std::exp(-x));
}

std::vector<UnaryCase> unary_cases() {
  return {
      {"neg", ops::neg, [](double x) { return -x; }, -2, 2, true},
      {"sign", ops::sign, [](double x) { return x > 0   ? 1.0
                                                : x < 0 ? -1.0
                                                        : 0.0; }, -2, 2, false,
       false},
      {"abs", ops::abs, [](double x) { return std::abs(x); }, 0.1, 2, false},
      {"exp", ops::exp, [](double x) { return std::exp(x); }, -2, 2, true},
      {"log", ops::log, [](double x) { return std::log(x); }, 0.2, 3, true},
      {"log1p", ops::log1p, [](double x) { return std::log1p(x); }, -0.5, 3, true},
      {"sqrt", ops::sqrt, [](double x) { return std::sqrt(x); }, 0.2, 3, true},
      {"rsqrt", ops::rsqrt, [](double x) { return 1 / std::sqrt(x); }, 0.2, 3, true},
      {"square", ops::square, [](double x) { return x * x; }, -2, 2, true},
      {"tanh", ops::tanh, [](double x) { return std::tanh(x); }, -2, 2, true},
      {"sigmoid", ops::sigmoid, sigmoid_ref, -4, 4, true},
      {"relu", ops::relu, [](double x) { return x > 0 ? x : 0; }, 0.1, 2, false},
      {"leaky_relu", [](const Tensor& x) { return ops::leaky_relu(x, 0.2); },
       [](double x) { return x > 0 ? x : 0.2 * x; }, -2, -0.1, false},
      {"elu", [](const Tensor& x) { return ops::elu(x, 1.5); },
       [](double x) { return x > 0 ? x : 1.5 * (std::exp(x) - 1); }, -2, -0.1, true},
      {"gelu", [](const Tensor& x) { return ops::gelu(x); },
       [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, -3, 3, true},
      {"gelu_tanh", [](const Tensor& x) { return ops::gelu(x, true); },
       [](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
       },
       -3, 3, true},
      {"softplus", ops::softplus, [](double x) { return std::log1p(std::exp(x)); }, -4, 4, true},
      {"sin", ops::sin, [](double x) { return std::sin(x); }, -3, 3, true},
      {"cos", ops::cos, [](double x) { return std::cos(x); }, -3, 3, true},
      {"erf", ops::erf, [](double x) { return std::erf(x); }, -2, 2, true},
      {"relu6", ops::relu6, [](double x) { return std::min(std::max(x, 0.0), 6.0); }, 0.1, 5.9,
       false},
      {"hard_sigmoid", ops::hard_sigmoid, [](double x) { return (x + 3) / 6; }, -2.9, 2.9, true},
      {"hard_silu", ops::hard_silu, [](double x) { return x * (x + 3) / 6; }, -2.9, 2.9, true},
      {"mish", ops::mish, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }, -3, 3,
       true},
      {"softsign", ops::softsign, [](double x) { return x / (1 + std::abs(x)); }, -2, 2, true},
  };
}

// A new row of unary_op_rows.h comes with a case here: its values and gradient are checked.
TEST(UnaryOps, EveryRowHasACase) {
  std::vector<std::string> cases;
  for (const UnaryCase& c : unary_cases()) cases.emplace_back(c.name);
#define KILN_ROW_NAME(op) #op,
  for (const char* op :
       {KILN_UNARY_OP_ROWS(KILN_UNARY_ROW_NAME, KILN_UNARY_ROW_NAME, KILN_ROW_NAME)})
    EXPECT_TRUE(std::find(cases.begin(), cases.end(), op) != cases.end()) << op << " has no case";
#undef KILN_ROW_NAME
}

// Outside the ramps: the clipped ops saturate as Keras's do.
TEST(UnaryOps, HardOpsSaturate) {
  const Tensor x = from_vector<float>({-8, -3, 3, 8}, {4});
  EXPECT_EQ(ops::relu6(x * 2.0).to_vector<float>(), (std::vector<float>{0, 0, 6, 6}));
  EXPECT_EQ(ops::hard_sigmoid(x).to_vector<float>(), (std::vector<float>{0, 0, 1, 1}));
  EXPECT_EQ(ops::hard_silu(x).to_vector<float>(), (std::vector<float>{-0, -0, 3, 8}));
}

class UnaryOp : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryOp, MatchesCmath) {
  const UnaryCase& c = GetParam();
  for (DType dtype : {DType::f32, DType::f64}) {
    // Big enough to cross the parallel threshold, so threaded chunks are covered.
    const Tensor x = ops::cast(testing::random_f64({70000}, c.lo, c.hi), dtype);
    const Tensor y = c.op(x);
    ASSERT_EQ(y.dtype(), dtype);
    const auto xs = x.to_vector<double>();
    const auto ys = y.to_vector<double>();
    const double tol = dtype == DType::f32 ? 2e-6 : 1e-14;
    for (size_t i = 0; i < xs.size(); i += 97) {
      const double want = c.reference(xs[i]);
      ASSERT_NEAR(ys[i], want, tol * std::max(1.0, std::abs(want)))
          << c.name << "(" << xs[i] << ")";
    }
  }
}

TEST_P(UnaryOp, GradientMatchesFiniteDifferences) {
  const UnaryCase& c = GetParam();
  Tensor x = testing::random_f64({3, 4}, c.lo, c.hi);
  if (!c.differentiable) {  // gradients stop at it, as at a comparison
    EXPECT_FALSE(c.op(x.set_requires_grad(true)).requires_grad());
    return;
  }
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) { return c.op(in[0]); }, {x},
      c.smooth ? testing::GradCheckOptions{} : testing::GradCheckOptions::nonsmooth());
}

TEST_P(UnaryOp, HalfPrecisionComputesInFloat) {
  const UnaryCase& c = GetParam();
  for (DType dtype : {DType::f16, DType::bf16}) {
    const Tensor x = ops::cast(testing::random_f64({64}, c.lo, c.hi), dtype);
    const auto got = c.op(x).to_vector<double>();
    const auto xs = x.to_vector<double>();
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = c.reference(xs[i]);
      ASSERT_NEAR(got[i], want, 1e-2 * std::max(1.0, std::abs(want))) << c.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, UnaryOp, ::testing::ValuesIn(unary_cases()),
                         [](const auto& test) { return std::string(test.param.name); });

TEST(UnaryOps, IntegerAndBoolInputs) {
  const Tensor i = from_vector<int32_t>(std::vector<int32_t>{-3, 0, 4}, {3});
  EXPECT_EQ(ops::abs(i).to_vector<int32_t>(), (std::vector<int32_t>{3, 0, 4}));
  EXPECT_EQ(ops::sign(i).to_vector<int32_t>(), (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(ops::relu(i).to_vector<int32_t>(), (std::vector<int32_t>{0, 0, 4}));
  EXPECT_EQ(ops::logical_not(i).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_THROW(ops::exp(i), ShapeError);
}

TEST(UnaryOps, SoftplusAndSigmoidAreStableAtExtremes) {
  const Tensor x = tensor({-100, 100});
  EXPECT_EQ(ops::softplus(x).to_vector<float>(), (std::vector<float>{0, 100}));
  EXPECT_EQ(ops::sigmoid(x).to_vector<float>(), (std::vector<float>{0, 1}));
}

TEST(UnaryOps, CastConvertsAndRounds) {
  const Tensor x = tensor({1.5f, -2.7f, 0.0f});
  EXPECT_EQ(ops::cast(x, DType::i32).to_vector<int32_t>(), (std::vector<int32_t>{1, -2, 0}));
  EXPECT_EQ(ops::cast(x, DType::boolean).to_vector<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(ops::cast(ops::cast(x, DType::f16), DType::f32).to_vector<float>(),
            (std::vector<float>{1.5f, -2.69921875f, 0.0f}));
  testing::expect_gradients_match(
      [](const std::vector<Tensor>& in) {
        return ops::cast(ops::cast(in[0], DType::f32), DType::f64);
      },
      {testing::random_f64({4})}, {1e-3, 1e-5, 1e-4});
}

}  // namespace
}  // namespace kiln
