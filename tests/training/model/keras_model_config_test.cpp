// kiln against model configs Keras 3 wrote (keras_model_configs.inc, written by
// scripts/golden/generate_model_configs.py): kiln rebuilds each model and computes Keras's
// outputs from Keras's weights, and kiln's config of the same model, built in C++, matches
// Keras's in everything kiln writes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/merge/concatenate.h"
#include "kiln/layers/registry.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

#include "tests/training/model/keras_model_configs.inc"

using layers::Dense;
using layers::Input;

class KerasModelConfig : public testing::Test {
 protected:
  void SetUp() override { layers::reset_names(); }
};

Config golden(const std::string& label) {
  for (const auto& [name, json] : kKerasModelConfigs)
    if (name == label) return Config::from_json(json);
  ADD_FAILURE() << "no golden " << label;
  return Config::map();
}

Tensor tensor_of(const Config& c) {
  return from_vector(c["values"].as_double_list(), Shape(c["shape"].as_int_list()), DType::f32);
}

TEST_F(KerasModelConfig, KilnRebuildsKerasModelsAndComputesTheirOutputs) {
  for (const auto& [label, json] : kKerasModelConfigs) {
    SCOPED_TRACE(label);
    const Config g = Config::from_json(json);
    auto model = std::dynamic_pointer_cast<Model>(layers::deserialize_layer(g["model"]));
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->class_name(), g["model"]["class_name"].as_string());
    std::vector<std::string> names;
    for (const layers::LayerPtr& layer : model->layers()) names.push_back(layer->name());
    EXPECT_EQ(names, g["layers"].as_string_list());
    // Weights by "layer/weight" name: the order of weights is not part of a config.
    ASSERT_EQ(model->weights().size(), g["weights"].as_map().size());
    for (const Variable& v : model->weights()) v.assign(tensor_of(g["weights"][v.name()]));
    std::vector<Tensor> inputs;
    for (const Config& x : g["inputs"].as_list()) inputs.push_back(tensor_of(x));
    const std::vector<Tensor> outputs = (*model)(inputs, {});
    ASSERT_EQ(outputs.size(), g["outputs"].size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Config& want = g["outputs"].at(i);
      EXPECT_EQ(outputs[i].shape(), Shape(want["shape"].as_int_list()));
      const std::vector<float> got = outputs[i].to_vector<float>();
      const std::vector<double> values = want["values"].as_double_list();
      ASSERT_EQ(got.size(), values.size());
      for (size_t k = 0; k < got.size(); ++k)
        EXPECT_NEAR(got[k], values[k], 1e-5 * (1 + std::abs(values[k]))) << "output " << i;
    }
  }
}

void expect_same_layer(const Config& ours, const Config& keras);

// A model config: the keys kiln writes equal, and the layers one by one.
void expect_same_model(const Config& ours, const Config& keras,
                       std::initializer_list<const char*> keys) {
  for (const char* key : keys) EXPECT_EQ(ours[key], keras[key]) << key;
  ASSERT_EQ(ours["layers"].size(), keras["layers"].size());
  for (size_t i = 0; i < keras["layers"].size(); ++i)
    expect_same_layer(ours["layers"].at(i), keras["layers"].at(i));
}

// A serialized layer: the same class, where Keras finds it, the same calls in a functional
// model's list, and the same layer.
void expect_same_layer(const Config& ours, const Config& keras) {
  const std::string class_name = keras["class_name"].as_string();
  SCOPED_TRACE(keras["config"]["name"].as_string() + " (" + class_name + ")");
  for (const char* key : {"module", "class_name", "registered_name"})
    EXPECT_EQ(ours[key], keras[key]) << key;
  if (keras.contains("inbound_nodes")) {
    EXPECT_EQ(ours["name"], keras["name"]);
    ASSERT_EQ(ours["inbound_nodes"].size(), keras["inbound_nodes"].size());
    for (size_t i = 0; i < keras["inbound_nodes"].size(); ++i) {
      EXPECT_EQ(ours["inbound_nodes"].at(i)["args"], keras["inbound_nodes"].at(i)["args"]);
      // Keras passes mask=None to a nested model; kiln passes no keyword arguments.
      EXPECT_EQ(ours["inbound_nodes"].at(i)["kwargs"], Config::map());
    }
  }
  if (class_name == "Functional") {
    expect_same_model(ours["config"], keras["config"],
                      {"name", "trainable", "input_layers", "output_layers"});
  } else if (class_name == "Sequential") {
    expect_same_model(ours["config"], keras["config"], {"name", "trainable", "build_input_shape"});
  } else {
    // Keras also writes arguments kiln leaves out (null constraints, initializer seeds): the
    // layer kiln reads from Keras's config is the one kiln wrote.
    EXPECT_EQ(layers::serialize_layer(*layers::deserialize_layer(keras))["config"], ours["config"]);
  }
}

// The models of scripts/golden/generate_model_configs.py, built the same way in kiln.
Model two_heads() {
  const auto a = Input({8}, DType::f32, "a");
  const auto b = Input({8}, DType::f32, "b");
  auto shared = layers::share(Dense(4, {.activation = "tanh", .name = "shared"}));
  const auto ha = (*shared)(a);
  const auto hb = (*shared)(b);
  const auto merged = layers::Concatenate({.name = "merged"})({ha, hb})[0];
  return Model({a, b}, {Dense(2, {.name = "out1"})(merged), Dense(1, {.name = "out2"})(hb)},
               "two_heads");
}

Model nested() {
  const auto x = Input({4}, DType::f32, "x");
  const auto h = Dense(3, {.activation = "relu", .name = "hidden"})(x);
  const auto inner_in = Input({3}, DType::f32, "inner_in");
  auto inner =
      std::make_shared<Model>(inner_in, Dense(2, {.name = "inner_dense"})(inner_in), "inner");
  auto tower =
      std::make_shared<Sequential>(std::vector<layers::LayerRef>{Input({2}, DType::f32, "tower_in"),
                                                                 Dense(5, {.name = "tower_dense"})},
                                   "tower");
  const auto first = (*inner)(h);
  const auto second = (*inner)(h);
  return Model({x}, {(*tower)(first), second}, "nested");
}

Sequential sequential() {
  return Sequential(
      {Input({6}, DType::f32, "features"), Dense(5, {.activation = "relu", .name = "fc1"}),
       layers::Dropout(0.25, {.name = "drop"}), Dense(2, {.name = "fc2"})},
      "stack");
}

TEST_F(KerasModelConfig, KilnWritesTheConfigKerasWrites) {
  {
    SCOPED_TRACE("two_heads");
    expect_same_layer(layers::serialize_layer(two_heads()), golden("two_heads")["model"]);
  }
  {
    SCOPED_TRACE("nested");
    expect_same_layer(layers::serialize_layer(nested()), golden("nested")["model"]);
  }
  {
    SCOPED_TRACE("sequential");
    expect_same_layer(layers::serialize_layer(sequential()), golden("sequential")["model"]);
  }
}

}  // namespace
}  // namespace kiln
