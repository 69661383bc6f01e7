// Sequential, functional and subclassed models: building, shapes, weights, summary, configs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/core/activation.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/registry.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/layers/reshaping/reshape.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

using layers::Dense;
using layers::Dropout;
using layers::Flatten;
using layers::Input;
using testing::HasSubstr;
using testing::Not;

class ModelBuilding : public testing::Test {
 protected:
  void SetUp() override { layers::reset_names(); }
};

TEST_F(ModelBuilding, SequentialWithInputBuildsAtOnceAndPrintsKerasSummary) {
  Sequential model(
      {Input({28, 28}), Flatten(), Dense(512, {.activation = "relu"}), Dropout(0.2), Dense(10)});
  EXPECT_TRUE(model.built());
  EXPECT_EQ(model.layers().size(), 4u);
  EXPECT_EQ(model.count_params(), 784 * 512 + 512 + 512 * 10 + 10);
  EXPECT_EQ(model.weights()[0].name(), "dense/kernel");
  EXPECT_EQ(model.summary(),
            "Model: \"sequential\"\n"
            "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n"
            "┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n"
            "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n"
            "│ flatten (Flatten)               │ (None, 784)            │             0 │\n"
            "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
            "│ dense (Dense)                   │ (None, 512)            │       401,920 │\n"
            "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
            "│ dropout (Dropout)               │ (None, 512)            │             0 │\n"
            "├─────────────────────────────────┼────────────────────────┼───────────────┤\n"
            "│ dense_1 (Dense)                 │ (None, 10)             │         5,130 │\n"
            "└─────────────────────────────────┴────────────────────────┴───────────────┘\n"
            " Total params: 407,050 (1.55 MB)\n"
            " Trainable params: 407,050 (1.55 MB)\n"
            " Non-trainable params: 0 (0.00 B)\n");
}

TEST_F(ModelBuilding, SequentialWithoutInputBuildsOnFirstCallAndPops) {
  Sequential model;
  model.add(Dense(4));
  model.add(Dense(3));
  EXPECT_FALSE(model.built());
  const Tensor y = model(ones({2, 5}));
  EXPECT_EQ(y.shape(), Shape({2, 3}));
  EXPECT_EQ(model.count_params(), 5 * 4 + 4 + 4 * 3 + 3);
  model.pop();
  EXPECT_EQ(model.layers().size(), 1u);
  EXPECT_EQ(model.count_params(), 5 * 4 + 4);
}

// Added one by one, each layer is built from the one before (Sequential::add builds only the new
// one, so a model of many layers builds in linear time; input_scale_bench times 10k of them),
// and popping then adding again still builds from the right shape.
TEST_F(ModelBuilding, ASequentialOfThousandsOfLayersBuildsLayerByLayer) {
  Sequential model;
  model.add(Input({3}));
  for (int i = 0; i < 2000; ++i) model.add(Dense(i % 2 == 0 ? 4 : 3));
  EXPECT_TRUE(model.built());
  EXPECT_EQ(model.layers().size(), 2000u);
  EXPECT_EQ(model.count_params(), 1000 * (3 * 4 + 4) + 1000 * (4 * 3 + 3));
  EXPECT_EQ(model(ones({2, 3})).shape(), Shape({2, 3}));
  model.pop();
  model.add(Dense(7));
  EXPECT_EQ(model(ones({2, 3})).shape(), Shape({2, 7}));
  EXPECT_EQ(model.layers().back()->weights()[0].value().shape(), Shape({4, 7}));
}

TEST_F(ModelBuilding, FunctionalTwoInputsSharedLayerAndNestedModel) {
  const auto a = Input({8}, DType::f32, "a");
  const auto b = Input({8}, DType::f32, "b");
  auto shared = layers::share(Dense(4, {.activation = "tanh", .name = "shared"}));
  const auto ha = (*shared)(a);
  const auto hb = (*shared)(b);
  auto inner_in = Input({4});
  Model inner(inner_in, Dense(2)(inner_in), "inner");
  const auto merged = layers::Activation("relu")(ha);
  auto out1 = std::move(inner)(merged);
  const auto out2 = Dense(1, {.name = "second"})(hb);
  Model model({a, b}, {out1, out2}, "two_heads");
  EXPECT_EQ(model.class_name(), "Functional");
  EXPECT_EQ(model.num_outputs(), 2u);
  // The shared Dense counts once.
  EXPECT_EQ(model.count_params(), (8 * 4 + 4) + (4 * 2 + 2) + (4 * 1 + 1));
  const auto outs = model({ones({3, 8}), zeros({3, 8})}, {});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].shape(), Shape({3, 2}));
  EXPECT_EQ(outs[1].shape(), Shape({3, 1}));
  const std::string summary = model.summary();
  EXPECT_THAT(summary, HasSubstr("Connected to"));
  EXPECT_THAT(summary, HasSubstr("shared (Dense)"));
  EXPECT_THAT(summary, HasSubstr("a[0][0], b[0][0]"));
  EXPECT_THAT(summary, HasSubstr("inner (Functional)"));
  EXPECT_EQ(model.get_layer("second")->name(), "second");
  try {
    model.get_layer("secnd");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'second'"));
  }
}

class TwoLayerNet : public Model {
  KILN_LAYER_CLASS(TwoLayerNet)

 public:
  TwoLayerNet() : Model("two_layer_net") {
    hidden_ = track(Dense(16, {.activation = "relu"}));
    out_ = track(Dense(1));
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const layers::CallContext&) override {
    return {(*out_)((*hidden_)(in[0]))};
  }

 private:
  std::shared_ptr<Dense> hidden_;
  std::shared_ptr<Dense> out_;
};

TEST_F(ModelBuilding, SubclassedModelTracksItsLayers) {
  TwoLayerNet net;
  EXPECT_EQ(net(ones({4, 3})).shape(), Shape({4, 1}));
  EXPECT_EQ(net.trainable_weights().size(), 4u);
  EXPECT_EQ(net.count_params(), 3 * 16 + 16 + 16 + 1);
  EXPECT_EQ(net.class_name(), "TwoLayerNet");
}

TEST_F(ModelBuilding, ErrorsNameTheLayerAndShapes) {
  const auto x = Input({-1});
  try {
    Dense(3, {.name = "head"})(x);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'head' (Dense) needs a known last input dim"));
  }
  Sequential model({Input({4}), Dense(2)});
  try {
    model(ones({2, 5}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("dense"));
  }
  EXPECT_THROW(Dense(3, {.activation = "rellu"}), Error);
}

// Keras shows "Connected to" only where the graph is not one chain of calls.
TEST_F(ModelBuilding, AFunctionalChainSummarizesWithoutConnections) {
  const auto in = Input({8});
  const auto out = Dense(2)(Dense(4)(in));
  const Model chain(in, out, "chain");
  EXPECT_THAT(chain.summary(), Not(HasSubstr("Connected to")));
  EXPECT_THAT(chain.summary(), HasSubstr("dense_1 (Dense)"));
  const auto a = Dense(4)(in);
  const Model branches({in}, {a, Dense(2)(in)}, "branches");
  EXPECT_THAT(branches.summary(), HasSubstr("Connected to"));
}

TEST_F(ModelBuilding, FrozenLayersMoveWeightsToNonTrainable) {
  Sequential model({Input({4}), Dense(3), Dense(2)});
  model.layers()[0]->set_trainable(false);
  EXPECT_EQ(model.trainable_weights().size(), 2u);
  EXPECT_EQ(model.non_trainable_weights().size(), 2u);
  EXPECT_THAT(model.summary(), HasSubstr("Non-trainable params: 15 (60.00 B)"));
}

TEST_F(ModelBuilding, LayerConfigsRoundTripThroughTheRegistry) {
  const std::vector<layers::LayerPtr> originals{
      std::make_shared<Dense>(7, layers::DenseOptions{.activation = "gelu",
                                                      .use_bias = false,
                                                      .kernel_initializer = "he_normal",
                                                      .kernel_regularizer = regularizers::l2(0.01),
                                                      .name = "d"}),
      std::make_shared<Dropout>(0.3, layers::DropoutOptions{.seed = 5}),
      std::make_shared<layers::Reshape>(Shape({2, -1})),
      std::make_shared<Flatten>(),
      std::make_shared<layers::Activation>("softmax"),
  };
  for (const auto& layer : originals) {
    const Config config = layers::serialize_layer(*layer);
    const Config again = layers::serialize_layer(*layers::deserialize_layer(config));
    EXPECT_EQ(again, config) << config.to_json();
  }
  Config bad = layers::serialize_layer(*originals[0]);
  bad.find("config")->set("unitz", 3);
  try {
    layers::deserialize_layer(bad);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown key 'unitz' for Dense (did you mean 'units'?)"));
  }
  try {
    layers::deserialize_layer(Config::map().set("class_name", "Dens"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'Dense'"));
  }
}

TEST_F(ModelBuilding, SequentialConfigRebuildsTheSameArchitecture) {
  Sequential model({Input({6}), Dense(5, {.activation = "relu"}), Dropout(0.1), Dense(2)});
  const Config config = model.get_config();
  auto rebuilt = std::dynamic_pointer_cast<Sequential>(Sequential::from_config(config));
  ASSERT_NE(rebuilt, nullptr);
  EXPECT_TRUE(rebuilt->built());
  EXPECT_EQ(rebuilt->count_params(), model.count_params());
  rebuilt->set_weights(model.get_weights());
  const Tensor x = ones({3, 6});
  EXPECT_EQ(model(x).to_vector<float>(), (*rebuilt)(x).to_vector<float>());
}

}  // namespace
}  // namespace kiln
