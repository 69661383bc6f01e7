// Model configs: Sequential and functional models (shared layers, several inputs and outputs,
// nested models) rebuilt from get_config through the layer registry, and errors that name the
// layer a bad config trips on. tests/training/model/keras_model_config_test.cpp checks the format
// against configs Keras wrote.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/core/error.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/merge/concatenate.h"
#include "kiln/layers/registry.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

using layers::Dense;
using layers::Input;
using testing::HasSubstr;

class ModelConfig : public testing::Test {
 protected:
  void SetUp() override { layers::reset_names(); }
};

// The model rebuilt from its serialized config, through JSON text as a file would hold it.
std::shared_ptr<Model> rebuild(const Model& model) {
  const Config text = Config::from_json(layers::serialize_layer(model).to_json());
  auto rebuilt = std::dynamic_pointer_cast<Model>(layers::deserialize_layer(text));
  EXPECT_NE(rebuilt, nullptr);
  return rebuilt;
}

std::vector<std::string> layer_names(const Model& model) {
  std::vector<std::string> out;
  for (const layers::LayerPtr& layer : model.layers()) out.push_back(layer->name());
  return out;
}

std::vector<Shape> weight_shapes(const Model& model) {
  std::vector<Shape> out;
  for (const Variable& v : model.weights()) out.push_back(v.shape());
  return out;
}

// Same weights, same inputs: the same outputs, to the bit.
void expect_same_predictions(Model& original, Model& rebuilt, const std::vector<Tensor>& x) {
  rebuilt.set_weights(original.get_weights());
  const std::vector<Tensor> want = original(x, {});
  const std::vector<Tensor> got = rebuilt(x, {});
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got[i].to_vector<float>(), want[i].to_vector<float>()) << "output " << i;
}

Tensor batch(const Shape& shape, uint64_t seed) {
  random::Generator gen(seed);
  return random::uniform(shape, -1, 1, DType::f32, gen);
}

// Two inputs; "shared" called on both; a functional model called twice and a Sequential, both
// as layers; two outputs.
Model two_towers() {
  const auto a = Input({6}, DType::f32, "a");
  const auto b = Input({6}, DType::f32, "b");
  auto shared = layers::share(Dense(4, {.activation = "tanh", .name = "shared"}));
  const auto ha = (*shared)(a);
  const auto hb = (*shared)(b);
  const auto inner_in = Input({4}, DType::f32, "inner_in");
  auto inner =
      std::make_shared<Model>(inner_in, Dense(4, {.name = "inner_dense"})(inner_in), "inner");
  auto tower = std::make_shared<Sequential>(
      std::vector<layers::LayerRef>{Input({8}, DType::f32, "tower_in"),
                                    Dense(3, {.activation = "relu", .name = "tower_dense"})},
      "tower");
  const auto merged = layers::Concatenate({.name = "merged"})({(*inner)(ha), (*inner)(hb)})[0];
  return Model({a, b}, {(*tower)(merged), Dense(1, {.name = "score"})(hb)}, "two_towers");
}

TEST_F(ModelConfig, FunctionalRoundTripKeepsNamesSharedLayersAndPredictions) {
  Model model = two_towers();
  model.set_trainable(false);
  const auto rebuilt = rebuild(model);
  EXPECT_EQ(rebuilt->class_name(), "Functional");
  EXPECT_EQ(rebuilt->name(), "two_towers");
  EXPECT_FALSE(rebuilt->trainable());
  EXPECT_EQ(layer_names(*rebuilt), layer_names(model));
  EXPECT_EQ(rebuilt->get_layer("inner")->class_name(), "Functional");
  EXPECT_EQ(rebuilt->get_layer("tower")->class_name(), "Sequential");
  // "shared" and "inner" are one layer each, called twice: their weights count once.
  EXPECT_EQ(rebuilt->weights().size(), 8u);
  EXPECT_EQ(weight_shapes(*rebuilt), weight_shapes(model));
  EXPECT_EQ(rebuilt->count_params(), model.count_params());
  EXPECT_EQ(layers::serialize_layer(*rebuilt), layers::serialize_layer(model));
  expect_same_predictions(model, *rebuilt, {batch({5, 6}, 1), batch({5, 6}, 2)});
}

TEST_F(ModelConfig, FunctionalConfigListsEachCallOfASharedLayer) {
  const Config config = two_towers().get_config();
  const Config& layer_list = config["layers"];
  const auto entry = [&](const std::string& name) {
    for (const Config& layer : layer_list.as_list())
      if (layer["name"].as_string() == name) return layer;
    ADD_FAILURE() << "no layer " << name;
    return Config();
  };
  const auto history = [](const Config& node, size_t i) {
    const Config& args = node["args"];
    const Config& tensor = args.at(0).is_list() ? args.at(0).at(i) : args.at(i);
    return tensor["config"]["keras_history"].to_json();
  };
  const Config shared = entry("shared");
  ASSERT_EQ(shared["inbound_nodes"].size(), 2u);
  EXPECT_EQ(history(shared["inbound_nodes"].at(0), 0), R"(["a", 0, 0])");
  EXPECT_EQ(history(shared["inbound_nodes"].at(1), 0), R"(["b", 0, 0])");
  // A multi-input layer gets its tensors as one list argument.
  const Config merged = entry("merged");
  EXPECT_EQ(history(merged["inbound_nodes"].at(0), 0), R"(["inner", 0, 0])");
  EXPECT_EQ(history(merged["inbound_nodes"].at(0), 1), R"(["inner", 1, 0])");
  EXPECT_EQ(entry("a")["inbound_nodes"].size(), 0u);
  EXPECT_EQ(config["input_layers"].to_json(), R"([["a", 0, 0], ["b", 0, 0]])");
  EXPECT_EQ(config["output_layers"].to_json(), R"([["tower", 0, 0], ["score", 0, 0]])");
}

TEST_F(ModelConfig, NodeIndicesFollowTheOrderOfCallsNotOfTheGraph) {
  const auto a = Input({3}, DType::f32, "a");
  const auto b = Input({3}, DType::f32, "b");
  auto shared = layers::share(Dense(2, {.name = "shared"}));
  const auto ha = (*shared)(a);
  const auto hb = (*shared)(b);
  // The outputs reach shared's second call first.
  Model model({a, b}, {Dense(1, {.name = "from_b"})(hb), Dense(1, {.name = "from_a"})(ha)});
  const Config config = model.get_config();
  EXPECT_EQ(config["layers"].at(3)["name"].as_string(), "from_b");
  EXPECT_EQ(config["layers"].at(3)["inbound_nodes"].at(0)["args"].at(0)["config"]["keras_history"],
            Config::from_json(R"(["shared", 1, 0])"));
  const auto rebuilt = rebuild(model);
  EXPECT_EQ(rebuilt->get_config(), config);
  expect_same_predictions(model, *rebuilt, {batch({4, 3}, 3), batch({4, 3}, 4)});
}

TEST_F(ModelConfig, OneInputAndOneOutputAreSingleReferences) {
  const auto x = Input({3}, DType::f32, "x");
  const auto unused = Input({2}, DType::f32, "unused");
  Model model({x, unused}, {Dense(2, {.name = "head"})(x)}, "single");
  const Config config = model.get_config();
  EXPECT_EQ(config["output_layers"].to_json(), R"(["head", 0, 0])");
  // An input no output reads is still a layer of the model, so the config can name it.
  EXPECT_EQ(config["input_layers"].to_json(), R"([["x", 0, 0], ["unused", 0, 0]])");
  const auto rebuilt = rebuild(model);
  EXPECT_EQ(layer_names(*rebuilt), (std::vector<std::string>{"x", "unused", "head"}));
  expect_same_predictions(model, *rebuilt, {batch({2, 3}, 5), batch({2, 2}, 6)});
}

TEST_F(ModelConfig, SequentialRoundTripsWithAndWithoutAnInput) {
  Sequential with_input({Input({6}, DType::f32, "features"), Dense(5, {.activation = "relu"}),
                         layers::Dropout(0.25), Dense(2)},
                        "with_input");
  const Config config = with_input.get_config();
  EXPECT_EQ(config["layers"].at(0)["class_name"].as_string(), "InputLayer");
  EXPECT_EQ(config["layers"].at(0)["config"]["name"].as_string(), "features");
  EXPECT_EQ(config["build_input_shape"].to_json(), "[null, 6]");
  const auto rebuilt = rebuild(with_input);
  EXPECT_EQ(layers::serialize_layer(*rebuilt), layers::serialize_layer(with_input));
  expect_same_predictions(with_input, *rebuilt, {batch({3, 6}, 7)});

  // Built by its first call: the config keeps the shape it was built for.
  Sequential called({Dense(4), Dense(1)}, "called");
  called(batch({2, 3}, 8));
  const auto rebuilt_called = rebuild(called);
  EXPECT_TRUE(rebuilt_called->built());
  EXPECT_EQ(weight_shapes(*rebuilt_called), weight_shapes(called));
  expect_same_predictions(called, *rebuilt_called, {batch({2, 3}, 9)});

  Sequential unbuilt({Dense(4)}, "unbuilt");
  EXPECT_FALSE(rebuild(unbuilt)->built());
}

TEST_F(ModelConfig, SequentialHoldingAFunctionalModelRoundTrips) {
  const auto inner_in = Input({4}, DType::f32, "inner_in");
  auto inner =
      std::make_shared<Model>(inner_in, Dense(3, {.name = "inner_dense"})(inner_in), "inner");
  Sequential stack({Input({4}), inner, Dense(1, {.name = "head"})}, "stack");
  const auto rebuilt = rebuild(stack);
  EXPECT_EQ(rebuilt->layers()[0]->class_name(), "Functional");
  EXPECT_EQ(layers::serialize_layer(*rebuilt), layers::serialize_layer(stack));
  expect_same_predictions(stack, *rebuilt, {batch({3, 4}, 10)});
}

// The config of a small model, as JSON text to edit.
std::string small_config_json() {
  const auto x = Input({3}, DType::f32, "x");
  const auto h = Dense(4, {.name = "hidden"})(x);
  return layers::serialize_layer(Model(x, Dense(2, {.name = "head"})(h), "small")).to_json();
}

std::string error_of(const std::string& json) {
  try {
    layers::deserialize_layer(Config::from_json(json));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST_F(ModelConfig, BadConfigsAreErrorsNamingTheLayer) {
  const std::string json = small_config_json();
  EXPECT_THAT(error_of(replaced(json, R"("class_name": "Dense")", R"("class_name": "Dens")")),
              HasSubstr("model 'small', layer 'hidden': unknown layer class 'Dens'; did you mean "
                        "'Dense'?"));
  EXPECT_THAT(
      error_of(replaced(json, R"("keras_history": ["hidden")", R"("keras_history": ["hiden")")),
      HasSubstr("model 'small': layer 'head' refers to unknown layer 'hiden' (did you "
                "mean 'hidden'?)"));
  EXPECT_THAT(
      error_of(replaced(json, R"("output_layers": ["head")", R"("output_layers": ["haed")")),
      HasSubstr("model 'small': output_layers refers to unknown layer 'haed'"));
  EXPECT_THAT(error_of(replaced(json, R"("keras_history": ["hidden", 0, 0])",
                                R"("keras_history": ["hidden", 1, 0])")),
              HasSubstr("call 0 of layer 'head' reads a layer call the config never makes"));
  EXPECT_THAT(error_of(replaced(json, R"("output_layers": ["head", 0, 0])",
                                R"("output_layers": ["head", 0, 1])")),
              HasSubstr("output_layers reads output 1 of layer 'head', which has 1"));
  EXPECT_THAT(error_of(replaced(json, R"("kwargs": {})", R"("kwargs": {"use_causal_mask": true})")),
              HasSubstr("layer 'hidden': call argument 'use_causal_mask' is not supported"));
  // A mask argument is skipped only when a Keras op node (the mask kiln computes itself) makes it.
  EXPECT_THAT(error_of(replaced(
                  json, R"("kwargs": {})",
                  R"("kwargs": {"mask": {"class_name": "__keras_tensor__", "config": )"
                  R"({"shape": [null, 4], "dtype": "bool", "keras_history": ["x", 0, 0]}}})")),
              HasSubstr("call argument 'mask' is not supported"));
  EXPECT_THAT(error_of(replaced(json, R"("input_layers")", R"("input_layer")")),
              HasSubstr("unknown key 'input_layer' for Functional (did you mean 'input_layers'?)"));
}

TEST_F(ModelConfig, KerasModelClassNameReadsAsAFunctionalModel) {
  Config config = Config::from_json(small_config_json());
  config.set("class_name", "Model");
  EXPECT_EQ(layers::deserialize_layer(config)->class_name(), "Functional");
  // A subclassed model's config holds only its base arguments.
  config.set("config", Config::from_json(R"({"name": "net", "trainable": true})"));
  EXPECT_THAT(error_of(config.to_json()),
              HasSubstr("a model config without 'layers' is a subclassed model's"));
}

TEST_F(ModelConfig, DuplicateLayerNamesCannotBeWritten) {
  const auto x = Input({3}, DType::f32, "x");
  const auto h = Dense(4, {.name = "same"})(x);
  Model model(x, Dense(2, {.name = "same"})(h), "twice");
  try {
    model.get_config();
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("model 'twice' has two layers named 'same'"));
  }
}

}  // namespace
}  // namespace kiln
