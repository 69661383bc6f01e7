// kiln's own weight files: a round trip restores every variable bitwise; files that do not fit
// (missing, foreign, truncated, another architecture, wrong dtype, missing variables) fail with
// errors naming the file, layer, variable and shapes, and leave the model as it was; a save
// killed midway leaves the previous file loadable.
#include "kiln/training/saving/weights_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "kiln/framework/core/error.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/normalization/batch_normalization.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/saving/atomic_write.h"
#include "kiln/training/saving/h5_file.h"

namespace kiln::saving {
namespace {

using namespace layers;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("kiln_weights_" + name)).string();
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

Sequential mlp(int64_t hidden, uint64_t seed) {
  random::set_seed(seed);
  return Sequential(
      {Input({5}), Dense(hidden, {.activation = "relu"}), BatchNormalization(), Dense(3)});
}

std::vector<std::vector<float>> values(const Model& model) {
  std::vector<std::vector<float>> out;
  for (const Variable& v : model.weights()) out.push_back(v.value().to_vector<float>());
  return out;
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

TEST(WeightsFile, RoundTripRestoresEveryVariable) {
  random::set_seed(3);
  Sequential saved({Input({-1}, DType::i32), Embedding(9, 4), LSTM(3, {.return_sequences = true}),
                    GRU(2), Dense(2)});
  Sequential loaded({Input({-1}, DType::i32), Embedding(9, 4), LSTM(3, {.return_sequences = true}),
                     GRU(2), Dense(2)});
  const std::string path = temp_path("round_trip.weights.h5");
  saved.save_weights(path);
  ASSERT_NE(values(saved), values(loaded));
  loaded.load_weights(path);
  EXPECT_EQ(values(saved), values(loaded));
  // The Keras layout: the recurrent layers' weights sit in their cells.
  const H5Group root = H5File::open(path).root();
  EXPECT_TRUE(root.has("layers/lstm/cell/vars/2"));
  EXPECT_TRUE(root.has("layers/gru/cell/vars/0"));
  EXPECT_EQ(root.open_group("layers/dense/vars").attr_string("name"), saved.layers()[3]->name());
  std::filesystem::remove(path);
}

TEST(WeightsFile, FilesThatDoNotFitNameWhatIsWrongAndLoadNothing) {
  Sequential model = mlp(4, 1);
  const auto before = values(model);
  const auto unchanged = [&] { EXPECT_EQ(values(model), before); };

  const std::string missing = temp_path("missing.weights.h5");
  expect_contains(error_of([&] { model.load_weights(missing); }), missing);

  const std::string text = temp_path("text.weights.h5");
  std::ofstream(text) << "weights, honestly";
  expect_contains(error_of([&] { model.load_weights(text); }), text + " is not an HDF5 file");

  // Another architecture: a wider hidden layer.
  const std::string wide = temp_path("wide.weights.h5");
  mlp(6, 2).save_weights(wide);
  const std::string shape_error = error_of([&] { model.load_weights(wide); });
  expect_contains(shape_error, wide + ":/layers/dense/vars/0");
  expect_contains(shape_error, "variable '" + model.layers()[0]->name() + "/kernel'");
  expect_contains(shape_error, "[5, 4] in the model but [5, 6] in the file");
  unchanged();

  // Missing variables: a model with one layer more than the file has.
  random::set_seed(4);
  Sequential deeper(
      {Input({5}), Dense(4, {.activation = "relu"}), BatchNormalization(), Dense(3), Dense(2)});
  const std::string small = temp_path("small.weights.h5");
  model.save_weights(small);
  const auto deeper_before = values(deeper);
  expect_contains(error_of([&] { deeper.load_weights(small); }),
                  "no weights for '" + deeper.layers()[3]->name() + "'");
  EXPECT_EQ(values(deeper), deeper_before);

  // A variable stored as integers.
  const std::string ints = temp_path("ints.weights.h5");
  model.save_weights(ints);
  {
    H5Group root = H5File::create(ints).root();
    Sequential copy = mlp(4, 1);
    for (const WeightGroup& g : copy.weight_groups()) {
      H5Group vars = root.group(g.path.empty() ? "vars" : g.path + "/vars");
      for (size_t i = 0; i < g.variables.size(); ++i)
        vars.write(std::to_string(i), i == 1 && g.path == "layers/dense"
                                          ? zeros(g.variables[i].shape(), DType::i32)
                                          : g.variables[i].value());
    }
  }
  expect_contains(error_of([&] { model.load_weights(ints); }),
                  "is float32 in the model but int32 in the file");
  unchanged();

  // Truncated: the end of the file is gone.
  const std::string cut = temp_path("cut.weights.h5");
  mlp(4, 5).save_weights(cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) * 2 / 3);
  expect_contains(error_of([&] { model.load_weights(cut); }), cut);
  unchanged();

  // Corrupt: the header overwritten.
  const std::string corrupt = temp_path("corrupt.weights.h5");
  mlp(4, 6).save_weights(corrupt);
  {
    std::fstream f(corrupt, std::ios::in | std::ios::out | std::ios::binary);
    const std::string junk(64, '\xAB');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  expect_contains(error_of([&] { model.load_weights(corrupt); }), corrupt);
  unchanged();
  for (const auto& p : {text, wide, small, ints, cut, corrupt}) std::filesystem::remove(p);
}

// A child process saves over an existing file and is killed before the new file is complete:
// the previous file is still whole.
TEST(WeightsFile, ASaveKilledMidwayLeavesThePreviousFileLoadable) {
  Sequential model = mlp(4, 7);
  const std::string path = temp_path("killed.weights.h5");
  model.save_weights(path);
  const auto saved = values(model);
  const Tensor junk = zeros({64, 64});
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    write_atomically(path, [&](const std::string& temporary) {
      H5File::create(temporary).root().group("layers/dense/vars").write("0", junk);
      raise(SIGKILL);
    });
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  Sequential other = mlp(4, 8);
  other.load_weights(path);
  EXPECT_EQ(values(other), saved);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".tmp-" + std::to_string(child));
}

TEST(WeightsFile, AThrowingWriteLeavesNoTemporaryAndNoTarget) {
  const std::string path = temp_path("never.weights.h5");
  EXPECT_THROW(write_atomically(path, [](const std::string&) { throw Error("disk full"); }), Error);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp-" + std::to_string(getpid())));
}

}  // namespace
}  // namespace kiln::saving
