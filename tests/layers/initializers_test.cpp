// Keras's initializers: fan rules, variances, bounds, orthogonality, names, seeds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/initializers/initializers.h"

namespace kiln::initializers {
namespace {

using ::testing::HasSubstr;

double variance_of(const Tensor& t) {
  return ops::variance(ops::cast(t, DType::f64)).item<double>();
}

double max_abs(const Tensor& t) {
  return ops::max(ops::abs(t)).item<double>();
}

TEST(Initializers, FansFollowKeras) {
  EXPECT_EQ(compute_fans({3, 4}).in, 3);
  EXPECT_EQ(compute_fans({3, 4}).out, 4);
  EXPECT_EQ(compute_fans({3, 3, 8, 16}).in, 72);  // a conv kernel: window x channels
  EXPECT_EQ(compute_fans({3, 3, 8, 16}).out, 144);
  EXPECT_EQ(compute_fans({5}).in, 5);
  EXPECT_EQ(compute_fans({}).out, 1);
}

TEST(Initializers, VarianceScalingFamilies) {
  random::Generator gen(1);
  const Shape shape{400, 600};
  struct Case {
    InitializerPtr init;
    double variance;
    double bound;  // every value within it
  };
  const double avg = 500, in = 400;
  const std::vector<Case> cases{
      {glorot_uniform(), 1 / avg, std::sqrt(3 / avg)},
      {glorot_normal(), 1 / avg, 2 * std::sqrt(1 / avg) / 0.87962566103423978},
      {he_uniform(), 2 / in, std::sqrt(6 / in)},
      {he_normal(), 2 / in, 2 * std::sqrt(2 / in) / 0.87962566103423978},
      {lecun_uniform(), 1 / in, std::sqrt(3 / in)},
      {lecun_normal(), 1 / in, 2 * std::sqrt(1 / in) / 0.87962566103423978},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.init->name());
    const Tensor w = (*c.init)(shape, DType::f32, gen);
    EXPECT_EQ(w.shape(), shape);
    EXPECT_NEAR(variance_of(w), c.variance, 0.05 * c.variance);
    EXPECT_LE(max_abs(w), c.bound * (1 + 1e-6));
  }
}

TEST(Initializers, ConstantsAndPlainDistributions) {
  random::Generator gen(2);
  EXPECT_EQ((*zeros())({2}, DType::f32, gen).to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ((*ones())({2}, DType::i32, gen).to_vector<int32_t>(), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ((*constant(0.5))({1}, DType::f32, gen).item<float>(), 0.5f);
  const Tensor n = (*random_normal(1.0, 0.5))({200, 200}, DType::f32, gen);
  EXPECT_NEAR(ops::mean(n).item<double>(), 1.0, 0.01);
  EXPECT_NEAR(variance_of(n), 0.25, 0.0125);
  const Tensor u = (*random_uniform())({1000}, DType::f32, gen);
  EXPECT_LE(max_abs(u), 0.05);
}

TEST(Initializers, OrthogonalHasOrthonormalRowsOrColumns) {
  random::Generator gen(3);
  for (const Shape& shape : {Shape{6, 4}, Shape{4, 6}, Shape{3, 2, 5}}) {
    SCOPED_TRACE(shape.to_string());
    const Tensor w = (*orthogonal(2.0))(shape, DType::f64, gen);
    EXPECT_EQ(w.shape(), shape);
    const Tensor flat = ops::reshape(w, {shape.numel() / shape.dim(-1), shape.dim(-1)});
    const bool tall = flat.dim(0) >= flat.dim(1);
    const Tensor gram =
        tall ? ops::matmul(flat, flat, true, false) : ops::matmul(flat, flat, false, true);
    const auto g = gram.to_vector<double>();
    const int64_t n = gram.dim(0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        EXPECT_NEAR(g[static_cast<size_t>(i * n + j)], i == j ? 4.0 : 0.0, 1e-9);
  }
}

TEST(Initializers, SameSeedSameWeights) {
  random::Generator a(7);
  random::Generator b(7);
  EXPECT_EQ((*he_normal())({8, 8}, DType::f32, a).to_vector<float>(),
            (*he_normal())({8, 8}, DType::f32, b).to_vector<float>());
}

TEST(Initializers, ByKerasNameWithSuggestions) {
  EXPECT_EQ(get("glorot_uniform")->name(), "GlorotUniform");
  EXPECT_EQ(get("HeNormal")->name(), "HeNormal");
  EXPECT_EQ(get("orthogonal")->name(), "Orthogonal");
  try {
    get("glorot_unifrom");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown initializer 'glorot_unifrom'"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'glorot_uniform'"));
  }
  EXPECT_THAT(known_names(), ::testing::IsSupersetOf({"glorot_uniform", "variance_scaling",
                                                      "identity", "constant", "normal"}));
}

// A name, the run-file form and Keras's form give the same initializer with the same arguments.
TEST(Initializers, EveryConfigFormKeepsTheArguments) {
  const Config keras_form = serialize(*from_config(Config::from_json(
      R"({"class_name": "RandomNormal", "config": {"mean": 1.0, "stddev": 0.02, "seed": 5}})")));
  const Config run_form = serialize(*from_config(
      Config::from_json(R"({"RandomNormal": {"mean": 1.0, "stddev": 0.02, "seed": 5}})")));
  EXPECT_EQ(keras_form, run_form);
  EXPECT_EQ(keras_form["config"]["stddev"].as_double(), 0.02);
  EXPECT_EQ(keras_form["module"].as_string(), "keras.initializers");
  EXPECT_EQ(serialize(*from_config(Config("normal")))["class_name"].as_string(), "RandomNormal");
  EXPECT_EQ(serialize(*from_config(Config("uniform")))["class_name"].as_string(), "RandomUniform");
  const Config scaling = serialize(*from_config(Config::from_json(
      R"({"VarianceScaling": {"scale": 0.5, "mode": "fan_out", "distribution": "uniform"}})")));
  EXPECT_EQ(scaling["config"]["mode"].as_string(), "fan_out");
  EXPECT_EQ(scaling["config"]["distribution"].as_string(), "uniform");
  EXPECT_EQ(scaling["config"]["scale"].as_double(), 0.5);
}

// Every registered initializer's config, read back, writes the same config.
TEST(Initializers, EveryClassRoundTripsItsConfig) {
  for (const std::string& name : known_names()) {
    SCOPED_TRACE(name);
    const Config written = serialize(*get(name));
    EXPECT_EQ(serialize(*from_config(Config::from_json(written.to_json()))), written);
  }
}

// Keras's int seed: the same values at every call, whatever generator is passed.
TEST(Initializers, ASeedFixesTheDraws) {
  random::Generator a(1);
  random::Generator b(2);
  const InitializerPtr seeded = random_uniform(-1, 1, 42);
  EXPECT_EQ((*seeded)({16}, DType::f32, a).to_vector<float>(),
            (*seeded)({16}, DType::f32, b).to_vector<float>());
  EXPECT_NE((*random_uniform(-1, 1, 43))({16}, DType::f32, a).to_vector<float>(),
            (*seeded)({16}, DType::f32, a).to_vector<float>());
}

TEST(Initializers, VarianceScalingArgumentsSetTheVariance) {
  random::Generator gen(5);
  const Tensor w = (*variance_scaling(0.5, FanMode::fan_out, Distribution::untruncated_normal))(
      {300, 200}, DType::f32, gen);
  EXPECT_NEAR(variance_of(w), 0.5 / 200, 0.05 * 0.5 / 200);
  const Tensor eye = (*identity(3.0))({2, 3}, DType::f32, gen);
  EXPECT_EQ(eye.to_vector<float>(), (std::vector<float>{3, 0, 0, 0, 3, 0}));
}

TEST(Initializers, BadArgumentsAreNamed) {
  try {
    (void)from_config(Config::from_json(R"({"VarianceScaling": {"mode": "fan_middle"}})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("VarianceScaling: mode must be one of fan_in, fan_out, fan_avg"));
  }
  try {
    (void)from_config(Config::from_json(
        R"({"class_name": "GlorotUniform", "config": {"seed": null, "input_axes": [0]}})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("GlorotUniform: 'input_axes' = [0] is not supported by kiln"));
  }
}

}  // namespace
}  // namespace kiln::initializers
