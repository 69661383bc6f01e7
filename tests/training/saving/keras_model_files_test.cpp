// Whole .keras models both ways with Keras. Keras 3 wrote the files in data/keras_models/
// (scripts/golden/generate_keras_model_files.py): kiln loads each and predicts what Keras
// predicted. kiln's own files reload to the same model, compile arguments and optimizer state;
// with KILN_KERAS_EXPORT_DIR set, the kiln-built models are left there (with their inputs and
// kiln's predictions) for scripts/golden/check_keras_loads_kiln_models.py, which has Keras load
// them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/core/masking.h"
#include "kiln/layers/initializers/initializers.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/merge/concatenate.h"
#include "kiln/layers/merge/merge.h"
#include "kiln/layers/normalization/batch_normalization.h"
#include "kiln/layers/normalization/layer_normalization.h"
#include "kiln/layers/preprocessing/text_vectorization.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/layers/registry.h"
#include "kiln/optimizers/optimizer.h"
#include "kiln/training/model/keras_file.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"
#include "kiln/training/saving/h5_file.h"
#include "kiln/training/saving/keras_archive.h"
#include "tests/training/saving/keras_fixtures.h"

namespace kiln::saving {
namespace {

namespace fs = std::filesystem;
using layers::KerasTensor;

using testing_fixtures::expect_near;
using testing_fixtures::kData;
using testing_fixtures::numbered;
using testing_fixtures::Predictions;
using testing_fixtures::read_predictions;

const std::string kModels = kData + "keras_models/";

// y = x * scale, one factor per feature: Keras's side registers it as "kiln>Scale".
class Scale : public layers::Layer {
  KILN_LAYER_CLASS(Scale)

 public:
  explicit Scale(layers::LayerArgs args = {}) : Layer(std::move(args)) {}
  static layers::LayerPtr from_config(const Config& config) {
    return std::make_shared<Scale>(layers::read_layer_fields<layers::LayerArgs>(config, "Scale"));
  }
  void build(const std::vector<Shape>& shapes) override {
    scale_ = add_weight("scale", {shapes[0].dim(-1)}, initializers::ones());
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const layers::CallContext&) override {
    return {in[0] * read(scale_)};
  }

 private:
  Variable scale_;
};

const bool kScaleRegistered = [] {
  layers::register_layer("Scale", Scale::from_config,
                         {.module = "kiln_interop", .registered_name = "kiln>Scale"});
  return true;
}();

Predictions expected(const std::string& file) {
  return read_predictions(H5File::open(file).root());
}

std::string temp_path(const std::string& name) {
  return (fs::path(testing::TempDir()) / name).string();
}

// Leaves the model, its inputs and kiln's predictions where the Keras check reads them.
void export_for_keras(Model& model, const std::vector<Tensor>& inputs) {
  const char* dir = std::getenv("KILN_KERAS_EXPORT_DIR");
  if (dir == nullptr) return;
  const fs::path base = fs::path(dir) / model.name();
  model.save(base.string() + ".keras");
  H5Group root = H5File::create(base.string() + ".expected.h5").root();
  for (size_t i = 0; i < inputs.size(); ++i) root.write(numbered('x', i), inputs[i]);
  const std::vector<Tensor> outputs = model.predict(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) root.write(numbered('y', i), outputs[i]);
}

class KerasModelFiles : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { layers::reset_names(); }
};

TEST_P(KerasModelFiles, KilnLoadsKerasFileAndPredictsAsKeras) {
  const Predictions e = expected(kModels + GetParam() + ".expected.h5");
  std::shared_ptr<Model> model = load_model(kModels + GetParam() + ".keras");
  EXPECT_EQ(model->name(), GetParam());
  expect_near(model->predict(e.inputs), e.outputs, GetParam() + ".keras");
}

TEST_P(KerasModelFiles, KilnsCopyOfKerasFileReloadsTheSame) {
  const Predictions e = expected(kModels + GetParam() + ".expected.h5");
  std::shared_ptr<Model> model = load_model(kModels + GetParam() + ".keras");
  const std::string path = temp_path(GetParam() + ".copy.keras");
  model->save(path);
  layers::reset_names();
  std::shared_ptr<Model> again = load_model(path);
  expect_near(again->predict(e.inputs), e.outputs, path);
  // kiln's config is stable: written from the model read, it reads back to the same config.
  EXPECT_EQ(layers::serialize_layer(*again), layers::serialize_layer(*model));
  export_for_keras(*again, e.inputs);
}

// Every layer config in a serialized model, nested models' too, by layer name.
void collect_layer_configs(const Config& model, std::map<std::string, Config>& out) {
  const Config* list = model["config"].find("layers");
  if (list == nullptr) return;
  for (const Config& layer : list->as_list()) {
    out[layer["config"]["name"].as_string()] = layer["config"];
    collect_layer_configs(layer, out);
  }
}

bool ends_with(const std::string& key, const std::string& suffix) {
  return key.size() > suffix.size() &&
         key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Keras's initializers, regularizers and constraints (with their arguments) are what kiln's
// layers hold: each argument Keras wrote, kiln writes back with the same value.
TEST_P(KerasModelFiles, KilnKeepsEveryArgumentOfKerasObjects) {
  const std::string path = kModels + GetParam() + ".keras";
  const Config keras_model =
      Config::from_json(saving::archive_entry(saving::read_zip_archive(path), "config.json", path));
  std::map<std::string, Config> written;
  collect_layer_configs(keras_model, written);
  std::map<std::string, Config> ours_by_name;
  collect_layer_configs(layers::serialize_layer(*load_model(path)), ours_by_name);
  size_t compared = 0;
  for (const auto& [name, keras_layer] : written) {
    for (const auto& [key, value] : keras_layer.as_map()) {
      if (!value.is_map() || !(ends_with(key, "_initializer") || ends_with(key, "_regularizer") ||
                               ends_with(key, "_constraint")))
        continue;
      SCOPED_TRACE(name + "." + key);
      ++compared;
      ASSERT_TRUE(ours_by_name.contains(name));
      const Config& ours = ours_by_name.at(name)[key];
      EXPECT_EQ(ours["class_name"].as_string(), value["class_name"].as_string());
      for (const auto& [argument, given] : value["config"].as_map()) {
        SCOPED_TRACE(argument);
        if (given.is_number()) {
          EXPECT_DOUBLE_EQ(ours["config"][argument].as_double(), given.as_double());
        } else if (!given.is_null() || ours["config"].contains(argument)) {
          EXPECT_EQ(ours["config"][argument].to_json(), given.to_json());
        }
      }
    }
  }
  EXPECT_GT(compared, 0u);
}

INSTANTIATE_TEST_SUITE_P(Cases, KerasModelFiles,
                         testing::Values("mlp", "cnn", "conv1d", "recurrent", "masked_functional",
                                         "masking", "masking_functional", "multi_input", "custom",
                                         "weight_arguments", "preprocessing", "text", "lookup",
                                         "weighted_text"));

TEST(KerasModelFile, KerasCompiledModelLoadsCompiledWithItsOptimizerState) {
  layers::reset_names();
  std::shared_ptr<Model> model = load_model(kModels + "mlp.keras");
  ASSERT_TRUE(model->compiled());
  const optimizers::Optimizer& adam = model->trainer().optimizer();
  EXPECT_EQ(adam.class_name(), "Adam");
  EXPECT_NEAR(adam.get_config()["learning_rate"].as_double(), 0.01, 1e-9);
  // Keras trained two batches before saving: iterations, then the moments it left.
  const std::vector<Variable> state = adam.variables();
  ASSERT_FALSE(state.empty());
  EXPECT_EQ(state[0].value().to_vector<int64_t>()[0], 2);
  const Tensor first_moment = state.at(2).value();
  EXPECT_GT(std::abs(first_moment.to_vector<float>()[0]), 0.0f);
  EXPECT_EQ(model->trainer().options().loss.name, "sparse_categorical_crossentropy");
  // It trains on from there.
  const Tensor x = from_vector<float>(std::vector<float>(24, 0.5f), {4, 6}, DType::f32);
  const Tensor y = from_vector<int32_t>({0, 1, 2, 1}, {4}, DType::i32);
  const auto logs = model->train_on_batch({x}, {y});
  EXPECT_TRUE(logs.contains("accuracy"));
  EXPECT_EQ(model->trainer().optimizer().variables()[0].value().to_vector<int64_t>()[0], 3);
}

TEST(KerasModelFile, LoadWithoutCompileLeavesTheModelUncompiled) {
  layers::reset_names();
  EXPECT_FALSE(load_model(kModels + "mlp.keras", {.compile = false})->compiled());
}

// A functional model with two inputs, a shared layer, a masked recurrent branch and two
// outputs, compiled and trained in kiln.
std::shared_ptr<Model> kiln_functional() {
  const KerasTensor ids = layers::Input({-1}, DType::i32, "ids");
  const KerasTensor side = layers::Input({3}, DType::f32, "side");
  const KerasTensor seq = layers::LSTM(4)(layers::Embedding(10, 3, {.mask_zero = true})(ids));
  auto shared = layers::share(layers::Dense(4, {.activation = "tanh", .name = "shared"}));
  const KerasTensor a = (*shared)(side);
  const KerasTensor b = (*shared)(layers::Dense(3)(side));
  const KerasTensor both =
      layers::Concatenate()(std::vector{seq, layers::Add()(std::vector{a, b})[0]})[0];
  return std::make_shared<Model>(std::vector{ids, side},
                                 std::vector{layers::Dense(2, {.name = "main"})(both),
                                             layers::Dense(1, {.name = "aux"})(both)},
                                 "kiln_functional");
}

std::shared_ptr<Model> kiln_sequential() {
  return std::make_shared<Sequential>(
      std::vector<layers::LayerRef>{layers::Input({5, 3}), layers::Masking(0.0),
                                    layers::LSTM(4, {.return_sequences = true}), layers::GRU(3),
                                    std::make_shared<Scale>(), layers::BatchNormalization(),
                                    layers::Dense(3)},
      "kiln_sequential");
}

// Every weight argument away from its default, so the Keras check reads them all.
std::shared_ptr<Model> kiln_weight_arguments() {
  return std::make_shared<Sequential>(
      std::vector<layers::LayerRef>{
          layers::Input({6}),
          layers::Dense(5, {.activation = "relu",
                            .kernel_initializer = initializers::random_normal(0.5, 0.1, 3),
                            .bias_initializer = initializers::constant(0.25),
                            .kernel_regularizer = regularizers::l1_l2(0.001, 0.002),
                            .kernel_constraint = constraints::max_norm(1.5),
                            .bias_constraint = constraints::non_neg(),
                            .activity_regularizer = regularizers::l2(0.01)}),
          layers::LayerNormalization({.beta_initializer = initializers::constant(0.5),
                                      .gamma_constraint = constraints::min_max_norm(0.5, 2.0)}),
          layers::Dense(
              2, {.kernel_initializer = initializers::variance_scaling(
                      0.5, initializers::FanMode::fan_out, initializers::Distribution::uniform),
                  .kernel_constraint = constraints::unit_norm()})},
      "kiln_weight_arguments");
}

std::vector<Tensor> functional_inputs() {
  return {from_vector<int32_t>({1, 4, 2, 0, 3, 5, 0, 0, 9, 8, 7, 6}, {3, 4}, DType::i32),
          random::normal({3, 3})};
}

std::vector<Tensor> sequential_inputs() {
  const Tensor x = random::normal({3, 5, 3});
  std::vector<float> v = x.to_vector<float>();
  for (size_t i = 15 + 9; i < 30; ++i) v[i] = 0.0f;  // the second sample's last two steps: masked
  return {from_vector<float>(v, {3, 5, 3}, DType::f32)};
}

void expect_round_trip(const std::shared_ptr<Model>& model, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& targets) {
  model->fit(inputs, targets, {.batch_size = 2, .epochs = 2, .verbose = 0});
  const std::string path = temp_path(model->name() + ".keras");
  model->save(path);
  layers::reset_names();
  std::shared_ptr<Model> loaded = load_model(path);
  expect_near(loaded->predict(inputs), model->predict(inputs), path);
  // Compiled as saved, with the optimizer's state: both continue identically.
  ASSERT_TRUE(loaded->compiled());
  const std::vector<Variable> want = model->trainer().optimizer().variables();
  const std::vector<Variable> got = loaded->trainer().optimizer().variables();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    expect_near({got[i].value()}, {want[i].value()},
                path + " optimizer variable " + std::to_string(i));
  model->train_on_batch(inputs, targets);
  loaded->train_on_batch(inputs, targets);
  expect_near(loaded->predict(inputs), model->predict(inputs), path + " after a step");
  export_for_keras(*model, inputs);
}

// tf_idf's weights travel as the variable idf_weights beside vocabulary.txt, padded to
// max_tokens too (a file Keras writes but cannot read back: it checks the padded weights against
// the vocabulary's length).
TEST(KerasModelFile, AdaptedTfIdfVectorizerKeepsItsWeights) {
  layers::reset_names();
  auto text = std::make_shared<layers::TextVectorization>(layers::TextVectorizationOptions{
      .max_tokens = 9, .output_mode = "tf_idf", .pad_to_max_tokens = true});
  const Tensor corpus = strings(std::vector<std::string>{"a b c", "a a d", "b e", "f"});
  text->adapt(corpus);
  const layers::KerasTensor input = layers::Input(Shape{}, DType::string, "review");
  auto model = std::make_shared<Model>(input, layers::Dense(2)((*text)(input)), "tf_idf");
  const std::string path = temp_path("tf_idf.keras");
  model->save(path);
  layers::reset_names();
  std::shared_ptr<Model> loaded = load_model(path);
  expect_near(loaded->predict(std::vector{corpus}), model->predict(std::vector{corpus}), path);
  const auto& reread =
      dynamic_cast<const layers::TextVectorization&>(*loaded->get_layer("text_vectorization"));
  EXPECT_EQ(reread.vocabulary(), text->vocabulary());
}

TEST(KerasModelFile, KilnFunctionalModelRoundTripsCompiled) {
  layers::reset_names();
  std::shared_ptr<Model> model = kiln_functional();
  model->compile({.optimizer = "adam",
                  .losses = {"sparse_categorical_crossentropy", "mse"},
                  .loss_weights = {1.0, 0.5},
                  .metrics = {"accuracy"}});
  expect_round_trip(model, functional_inputs(),
                    {from_vector<int32_t>({0, 1, 1}, {3}, DType::i32), random::normal({3, 1})});
}

TEST(KerasModelFile, KilnSequentialModelRoundTripsCompiled) {
  layers::reset_names();
  std::shared_ptr<Model> model = kiln_sequential();
  model->compile({.optimizer = "rmsprop", .loss = "sparse_categorical_crossentropy"});
  expect_round_trip(model, sequential_inputs(), {from_vector<int32_t>({0, 1, 2}, {3}, DType::i32)});
}

TEST(KerasModelFile, KilnModelWithWeightArgumentsRoundTripsCompiled) {
  layers::reset_names();
  std::shared_ptr<Model> model = kiln_weight_arguments();
  model->compile({.optimizer = "sgd", .loss = "mse"});
  expect_round_trip(model, {random::normal({4, 6})}, {random::normal({4, 2})});
  // The arguments themselves are in the file, not only their effect on the weights.
  const Config dense = layers::serialize_layer(*model->get_layer("dense"))["config"];
  EXPECT_EQ(dense["kernel_initializer"]["config"]["stddev"].as_double(), 0.1);
  EXPECT_EQ(dense["kernel_constraint"]["config"]["max_value"].as_double(), 1.5);
  EXPECT_EQ(dense["activity_regularizer"]["config"]["l2"].as_double(), 0.01);
}

TEST(KerasModelFile, AnUncompiledModelSavesWithoutCompileConfig) {
  layers::reset_names();
  std::shared_ptr<Model> model = kiln_sequential();
  const std::string path = temp_path("uncompiled.keras");
  model->save(path);
  const Config config =
      Config::from_json(archive_entry(read_zip_archive(path), "config.json", path));
  EXPECT_FALSE(config.contains("compile_config"));
  EXPECT_EQ(config["class_name"].as_string(), "Sequential");
  EXPECT_FALSE(load_model(path)->compiled());
}

void expect_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    FAIL() << "no error";
  } catch (const Error& e) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(KerasModelFile, AnUnknownLayerClassNamesTheClassAndTheFile) {
  const std::string source = kModels + "custom.keras";
  std::vector<ArchiveEntry> entries = read_zip_archive(source);
  for (ArchiveEntry& entry : entries)
    if (entry.name == "config.json") {
      const size_t at = entry.bytes.find("\"Scale\"");
      ASSERT_NE(at, std::string::npos);
      entry.bytes.replace(at, 7, "\"Wobble\"");
    }
  const std::string path = temp_path("unknown_layer.keras");
  write_zip_archive(path, entries);
  expect_error([&] { load_model(path); }, {path, "Wobble"});
}

TEST(KerasModelFile, BadFilesAreRefusedNamingThem) {
  const std::string missing = temp_path("no_such_model.keras");
  expect_error([&] { load_model(missing); }, {missing});
  const std::string not_zip = temp_path("not_a_zip.keras");
  std::ofstream(not_zip) << "hello";
  expect_error([&] { load_model(not_zip); }, {not_zip + " as a zip archive"});
  const std::string no_weights = temp_path("no_weights.keras");
  std::vector<ArchiveEntry> entries = read_zip_archive(kModels + "cnn.keras");
  std::erase_if(entries, [](const ArchiveEntry& e) { return e.name == "model.weights.h5"; });
  write_zip_archive(no_weights, entries);
  expect_error([&] { load_model(no_weights); }, {no_weights, "model.weights.h5"});
  layers::reset_names();
  expect_error([&] { kiln_sequential()->save(temp_path("m.h5")); }, {"m.h5", ".keras"});
}

// An entry is read in chunks up to a bound, never by the size it declares: a config.json larger
// than any model's (a zip bomb's 5 GB) is refused at the bound, which the environment raises.
TEST(KerasModelFile, AnEntryLargerThanItsBoundIsRefused) {
  std::vector<ArchiveEntry> entries = read_zip_archive(kModels + "cnn.keras");
  for (ArchiveEntry& entry : entries)
    if (entry.name == "config.json") entry.bytes += std::string(size_t{2} << 20, ' ');
  const std::string path = temp_path("padded.keras");
  write_zip_archive(path, entries);
  setenv("KILN_JSON_MAX_BYTES", "1048576", 1);
  expect_error([&] { load_model(path); },
               {path + ":config.json: more than 1048576 bytes uncompressed; set "
                       "KILN_JSON_MAX_BYTES to allow more"});
  unsetenv("KILN_JSON_MAX_BYTES");
  layers::reset_names();
  EXPECT_NO_THROW(load_model(path));  // 2 MiB is well within the default bound
}

TEST(KerasModelFile, ARefusedSaveLeavesTheEarlierFileWhole) {
  layers::reset_names();
  std::shared_ptr<Model> model = kiln_sequential();
  const std::string path = temp_path("kept.keras");
  model->save(path);
  const std::vector<ArchiveEntry> before = read_zip_archive(path);
  // A subclassed model has no config: its save fails before the file is touched.
  Model subclassed("subclassed");
  expect_error([&] { subclassed.save(path); }, {"subclassed", "save_weights"});
  const std::vector<ArchiveEntry> after = read_zip_archive(path);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i].bytes, before[i].bytes);
}

}  // namespace
}  // namespace kiln::saving
