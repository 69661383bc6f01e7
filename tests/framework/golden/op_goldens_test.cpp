// kiln's ops against golden values computed by TensorFlow in float64: outputs and the gradients
// of sum(output * upstream). The values come from scripts/golden/generate_op_goldens.py (see
// op_goldens.inc). Every case runs in float64, where only rounding may differ, and in float32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

struct GoldenTensor {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

// One struct for every op, set with designated initializers; each op reads only its fields.
struct GoldenParams {
  std::vector<int64_t> axes = {};                    // softmax, log_softmax, logsumexp, variance
  bool approximate = false;                          // gelu
  double alpha = 0;                                  // elu, leaky_relu
  bool transpose_a = false, transpose_b = false;     // matmul
  std::vector<int64_t> pool_size = {};               // pooling
  std::vector<int64_t> strides = {}, dilation = {};  // convolution (strides also pooling)
  int64_t groups = 1;                                // convolution
  const char* padding = "valid";                     // convolution, pooling
};

struct GoldenCase {
  const char* name;
  const char* op;
  GoldenParams params;
  std::vector<GoldenTensor> inputs;
  GoldenTensor expected;
  GoldenTensor upstream;
  std::vector<GoldenTensor> grads;  // d sum(expected * upstream) / d inputs[k]
};

void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.name;
}

#include "tests/framework/golden/op_goldens.inc"

using GoldenOp = std::function<Tensor(const std::vector<Tensor>&, const GoldenParams&)>;

const std::map<std::string, GoldenOp>& golden_ops() {
  using In = const std::vector<Tensor>&;
  using P = const GoldenParams&;
  static const std::map<std::string, GoldenOp> table = {
      {"gelu", [](In x, P p) { return ops::gelu(x[0], p.approximate); }},
      {"softplus", [](In x, P) { return ops::softplus(x[0]); }},
      {"elu", [](In x, P p) { return ops::elu(x[0], p.alpha); }},
      {"leaky_relu", [](In x, P p) { return ops::leaky_relu(x[0], p.alpha); }},
      {"sigmoid", [](In x, P) { return ops::sigmoid(x[0]); }},
      {"erf", [](In x, P) { return ops::erf(x[0]); }},
      {"log1p", [](In x, P) { return ops::log1p(x[0]); }},
      {"rsqrt", [](In x, P) { return ops::rsqrt(x[0]); }},
      {"softmax", [](In x, P p) { return ops::softmax(x[0], p.axes.at(0)); }},
      {"log_softmax", [](In x, P p) { return ops::log_softmax(x[0], p.axes.at(0)); }},
      {"logsumexp", [](In x, P p) { return ops::logsumexp(x[0], p.axes); }},
      {"variance", [](In x, P p) { return ops::variance(x[0], p.axes); }},
      {"matmul", [](In x, P p) { return ops::matmul(x[0], x[1], p.transpose_a, p.transpose_b); }},
      {"conv2d",
       [](In x, P p) {
         return ops::conv2d(x[0], x[1], p.strides, ops::parse_padding(p.padding), p.dilation,
                            p.groups);
       }},
      {"conv1d",
       [](In x, P p) {
         return ops::conv1d(x[0], x[1], p.strides.at(0), ops::parse_padding(p.padding),
                            p.dilation.at(0), p.groups);
       }},
      {"max_pool2d",
       [](In x, P p) {
         return ops::max_pool2d(x[0], p.pool_size, p.strides, ops::parse_padding(p.padding));
       }},
      {"avg_pool2d",
       [](In x, P p) {
         return ops::avg_pool2d(x[0], p.pool_size, p.strides, ops::parse_padding(p.padding));
       }},
  };
  return table;
}

Tensor to_tensor(const GoldenTensor& t, DType dtype) {
  return ops::cast(from_vector(t.values, Shape(t.shape)), dtype);
}

// tol scales with the value's magnitude but never below 1: sums that cancel to near zero carry
// the rounding error of their terms, not of their result.
void expect_close(const Tensor& got, const GoldenTensor& want, DType dtype, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.dtype(), dtype) << what;
  ASSERT_EQ(got.shape(), Shape(want.shape)) << what;
  const std::vector<double> values = got.to_vector<double>();
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(values[i], want.values[i], tol * (1 + std::abs(want.values[i])))
        << what << " element " << i;
  }
}

class OpGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(OpGolden, MatchesTensorFlow) {
  const GoldenCase& c = GetParam();
  const GoldenOp& op = golden_ops().at(c.op);
  // Inputs are exact in float32, so float32 differs only by its arithmetic.
  for (const auto& [dtype, tol] : {std::pair{DType::f64, 1e-10}, std::pair{DType::f32, 1e-5}}) {
    SCOPED_TRACE(dtype_name(dtype));
    std::vector<Tensor> inputs;
    for (const GoldenTensor& t : c.inputs) inputs.push_back(to_tensor(t, dtype));
    const Tensor upstream = to_tensor(c.upstream, dtype);
    expect_close(op(inputs, c.params), c.expected, dtype, tol, "output");
    const std::vector<Tensor> grads =
        grad([&](const std::vector<Tensor>& xs) { return ops::sum(op(xs, c.params) * upstream); },
             inputs);
    ASSERT_EQ(grads.size(), c.grads.size());
    for (size_t k = 0; k < grads.size(); ++k) {
      expect_close(grads[k], c.grads[k], dtype, tol, "gradient of input " + std::to_string(k));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TensorFlow, OpGolden, ::testing::ValuesIn(kOpGoldens),
                         [](const auto& test) { return std::string(test.param.name); });

}  // namespace
}  // namespace kiln
