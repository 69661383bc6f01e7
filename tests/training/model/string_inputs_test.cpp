// Models that take strings: a TextVectorization layer reads each string input on the host, and
// the traced steps start from what it made. The model trains, evaluates and predicts on strings,
// traces once, and gives the same predictions traced and eager.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/pooling/global_pooling.h"
#include "kiln/layers/preprocessing/text_vectorization.h"
#include "kiln/losses/losses.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"
#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

// Reviews whose class is whether they hold "good" or "bad" words.
const std::vector<std::string> kTexts{
    "a good film",    "bad acting",          "good good story", "a bad bad plot",
    "Good music!",    "the ending was BAD.", "good cast",       "bad",
    "good fun, good", "bad script, bad",     "great and good",  "dull and bad"};
const std::vector<int32_t> kLabels{1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0};

std::shared_ptr<layers::TextVectorization> adapted_vectorizer() {
  auto text = std::make_shared<layers::TextVectorization>(
      layers::TextVectorizationOptions{.max_tokens = 30, .output_sequence_length = 5});
  text->adapt(strings(kTexts));
  return text;
}

Model functional_model() {
  const layers::KerasTensor input = layers::Input(Shape{}, DType::string, "review");
  layers::KerasTensor x = (*adapted_vectorizer())(input);
  x = layers::Embedding(30, 8)(x);
  x = layers::GlobalAveragePooling1D()(x);
  return Model(input, layers::Dense(2)(x));
}

TEST(StringInputs, AFunctionalModelTrainsOnStringsThroughOneTrace) {
  random::set_seed(3);
  Model model = functional_model();
  model.compile({.optimizer = optimizers::get("adam"),
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .metrics = {"accuracy"}});
  const auto data = datasets::Dataset::from_tensor_slices(
      {strings(kTexts), from_vector(kLabels, Shape{12}, DType::i32)});
  model.trainer().optimizer().set_learning_rate(0.05);
  const History history = model.fit(data.batch(4), {.epochs = 30, .verbose = 0});
  EXPECT_LT(history.history.at("loss").back(), history.history.at("loss").front() * 0.5);
  EXPECT_EQ(model.trainer().train_stats().traces, 1);
  EXPECT_GT(model.evaluate(data.batch(5), {.verbose = 0}).at("accuracy"), 0.99);
  // Predictions: through the traced predict step, and eagerly through the layers, agree.
  const Tensor x = strings(std::vector<std::string>{"good good", "bad bad bad"});
  const Tensor traced = model.predict(x, {.verbose = 0});
  const Tensor eager = model(std::vector<Tensor>{x})[0];
  // To rounding: oneDNN may block the traced and the eager Dense differently per instruction set.
  const std::vector<float> p = traced.to_vector<float>();
  const std::vector<float> e = eager.to_vector<float>();
  ASSERT_EQ(p.size(), e.size());
  for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i], e[i], 1e-5) << i;
  EXPECT_GT(p[1], p[0]);  // "good good" is class 1
  EXPECT_GT(p[2], p[3]);
}

TEST(StringInputs, ASequentialModelTakesStringsFirstIntoTextVectorization) {
  Sequential model({layers::Input(Shape{1}, DType::string), adapted_vectorizer(),
                    layers::Embedding(30, 4), layers::GlobalAveragePooling1D(), layers::Dense(1)});
  const Tensor out = model.predict(strings(kTexts, Shape{12, 1}), {.verbose = 0});
  EXPECT_EQ(out.shape(), Shape({12, 1}));
  EXPECT_THAT(kiln::testing::error_of([] {
                Sequential wrong({layers::Input(Shape{1}, DType::string), layers::Dense(1)});
                (void)wrong.predict(strings(kTexts, Shape{12, 1}), {.verbose = 0});
              }),
              HasSubstr("(Dense) on inputs string[?, 1]"));
}

}  // namespace
}  // namespace kiln
