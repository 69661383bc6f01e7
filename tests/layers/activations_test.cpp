// Activations by name against keras.activations (values and gradients, float64 and float32;
// scripts/golden/generate_activation_goldens.py), and custom registration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/activations/activations.h"

namespace kiln::activations {
namespace {

using ::testing::HasSubstr;

struct ActivationGolden {
  const char* name;
  std::vector<double> input;  // shape [3, 5]
  std::vector<double> expected;
  std::vector<double> upstream;
  std::vector<double> grad;  // d sum(expected * upstream) / d input
};

#include "tests/layers/activation_goldens.inc"

struct ActivationArgumentGolden {
  const char* label;
  const char* spec;           // {name: {arguments}}, as a run file writes it
  std::vector<double> input;  // shape [4, 5]
  std::vector<double> expected;
  std::vector<double> upstream;  // the output's shape
  std::vector<double> grad;
  std::vector<int64_t> output_shape;
};

#include "tests/layers/activation_argument_goldens.inc"

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " element " << i;
}

TEST(Activations, MatchKerasValuesAndGradients) {
  ASSERT_EQ(kActivationGoldens.size(), 12u);
  for (const ActivationGolden& g : kActivationGoldens) {
    const Activation fn = get(g.name);
    for (const DType dtype : {DType::f64, DType::f32}) {
      const std::string what = detail::concat(g.name, ' ', dtype_name(dtype));
      // Keras keeps some constants in float32 (leaky_relu's 0.2, gelu's), which shows at 1e-8.
      const double tol = dtype == DType::f64 ? 1e-7 : 2e-6;
      const Tensor x = from_vector(g.input, {3, 5}, dtype);
      const Tensor upstream = from_vector(g.upstream, {3, 5}, dtype);
      expect_close(fn(x).to_vector<double>(), g.expected, tol, what);
      const auto grads =
          grad([&](const std::vector<Tensor>& v) { return ops::sum(fn(v[0]) * upstream); }, {x});
      expect_close(grads[0].to_vector<double>(), g.grad, tol, what + " gradient");
    }
  }
}

TEST(Activations, ArgumentsMatchKeras) {
  for (const ActivationArgumentGolden& g : kActivationArgumentGoldens) {
    const ActivationArg fn = ActivationArg::from_config(Config::from_json(g.spec));
    const Tensor x = from_vector(g.input, {4, 5}, DType::f64);
    const Tensor upstream = from_vector(g.upstream, Shape(g.output_shape), DType::f64);
    expect_close(fn(x).to_vector<double>(), g.expected, 1e-7, g.label);
    const auto grads =
        grad([&](const std::vector<Tensor>& v) { return ops::sum(fn(v[0]) * upstream); }, {x});
    expect_close(grads[0].to_vector<double>(), g.grad, 1e-7, std::string(g.label) + " gradient");
  }
}

// Written back as given: a name alone in Keras's form, arguments in kiln's {class_name, config}.
TEST(Activations, ArgumentsRoundTrip) {
  EXPECT_EQ(ActivationArg("relu").to_config(), Config("relu"));
  const ActivationArg leaky =
      ActivationArg::from_config(Config::from_json(R"({"leaky_relu": {"negative_slope": 0.1}})"));
  const Config written = leaky.to_config();
  EXPECT_EQ(written["class_name"].as_string(), "leaky_relu");
  EXPECT_EQ(written["config"]["negative_slope"].as_double(), 0.1);
  EXPECT_EQ(ActivationArg::from_config(written).to_config(), written);
  try {
    (void)ActivationArg::from_config(Config::from_json(R"({"elu": {"alpa": 0.5}})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown key 'alpa' for elu (did you mean 'alpha'"));
  }
  try {
    (void)ActivationArg("tanh", Config::from_json(R"({"alpha": 0.5})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown key 'alpha' for tanh"));
  }
}

TEST(Activations, CustomActivationsRegisterByName) {
  register_activation("squareplus",
                      [](const Tensor& x) { return (x + ops::sqrt(ops::square(x) + 4.0)) * 0.5; });
  EXPECT_FLOAT_EQ(get("squareplus")(scalar(0)).item<float>(), 1.0f);
  EXPECT_THROW(register_activation("relu", relu), Error);
  try {
    get("rleu");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("unknown activation 'rleu'; did you mean 'elu', 'glu' or 'relu'?"));
  }
}

}  // namespace
}  // namespace kiln::activations
