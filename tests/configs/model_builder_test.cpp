// Run files' model sections: Keras objects inside layer arguments (initializers, regularizers,
// constraints) in every form a run file may use, honoured and written back, with errors that
// point into the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/configs/model_builder.h"
#include "kiln/configs/yaml_config.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "tests/test_support/expect_error.h"

namespace kiln::configs {
namespace {

using ::testing::HasSubstr;

const layers::Dense& dense_named(const Model& model, const std::string& name) {
  return dynamic_cast<const layers::Dense&>(*model.get_layer(name));
}

double mean_of(const Variable& v) {
  return ops::mean(ops::cast(v.value(), DType::f64)).item<double>();
}

// The case a user reported: Keras's form with arguments trained with Keras's defaults instead.
TEST(ModelBuilder, InitializerArgumentsInEveryFormAreHonoured) {
  random::set_seed(3);
  const Config run = parse_yaml(R"(
model:
  input: {shape: [200]}
  layers:
    - Dense:
        units: 300
        kernel_initializer: {class_name: RandomNormal, config: {mean: 3.0, stddev: 0.001}}
        bias_initializer: {class_name: Constant, config: {value: 7.0}}
      name: keras_form
    - Dense:
        units: 300
        kernel_initializer: {RandomNormal: {stddev: 0.02}}
        kernel_constraint: {MaxNorm: {max_value: 3}}
        activity_regularizer: {L2: {l2: 0.001}}
      name: run_form
    - Dense: {units: 4, kernel_initializer: he_normal, bias_initializer: ones}
      name: by_name
)",
                                "run.yaml");
  const std::shared_ptr<Model> model = build_model(run["model"]);
  const layers::Dense& keras_form = dense_named(*model, "keras_form");
  EXPECT_NEAR(mean_of(keras_form.kernel()), 3.0, 1e-4);
  EXPECT_DOUBLE_EQ(mean_of(keras_form.bias()), 7.0);
  const layers::Dense& run_form = dense_named(*model, "run_form");
  const double stddev =
      std::sqrt(ops::variance(ops::cast(run_form.kernel().value(), DType::f64)).item<double>());
  EXPECT_NEAR(stddev, 0.02, 1e-3);
  EXPECT_DOUBLE_EQ(mean_of(dense_named(*model, "by_name").bias()), 1.0);

  // What a saved model's config holds: every argument, in Keras's form.
  const Config layers_config = model->get_config()["layers"];
  const Config& first = layers_config.at(1)["config"];
  EXPECT_EQ(first["kernel_initializer"]["config"]["mean"].as_double(), 3.0);
  EXPECT_EQ(first["bias_initializer"]["config"]["value"].as_double(), 7.0);
  const Config& second = layers_config.at(2)["config"];
  EXPECT_EQ(second["kernel_constraint"]["class_name"].as_string(), "MaxNorm");
  EXPECT_EQ(second["kernel_constraint"]["config"]["max_value"].as_double(), 3.0);
  EXPECT_EQ(second["activity_regularizer"]["config"]["l2"].as_double(), 0.001);
}

TEST(ModelBuilder, ActivationsTakeTheirArguments) {
  const Config run = parse_yaml(R"(
model:
  input: {shape: [3]}
  layers:
    - Dense: {units: 3, activation: {relu: {max_value: 1.0}}, kernel_initializer: identity}
      name: capped
)",
                                "run.yaml");
  const std::shared_ptr<Model> model = build_model(run["model"]);
  const Tensor y = model->predict(from_vector<float>({-2, 0.5, 4}, {1, 3}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0, 0.5, 1}));
  const Config written = model->get_config()["layers"].at(1)["config"]["activation"];
  EXPECT_EQ(written["class_name"].as_string(), "relu");
  EXPECT_EQ(written["config"]["max_value"].as_double(), 1.0);
}

TEST(ModelBuilder, AMisspeltArgumentPointsIntoTheFile) {
  const Config run = parse_yaml(R"(
model:
  input: {shape: [4]}
  layers:
    - Dense: {units: 2, kernel_initializer: {RandomNormal: {stdev: 0.02}}}
)",
                                "run.yaml");
  EXPECT_THAT(testing::error_of([&] { build_model(run["model"]); }), HasSubstr("run.yaml:5:"));
  EXPECT_THAT(testing::error_of([&] { build_model(run["model"]); }),
              HasSubstr("unknown key 'stdev' for RandomNormal (did you mean 'stddev'"));
}

}  // namespace
}  // namespace kiln::configs
