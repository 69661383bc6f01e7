// Every kind of mistake in a run file gets an error with file:line:column, the key path, what
// was expected and, for names, a suggestion; `kiln validate` finds them without training. The
// shipped configs/*.yaml validate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "apps/examples/custom_parts.h"
#include "apps/examples/image_folders.h"
#include "apps/examples/text_folders.h"
#include "kiln/configs/run.h"
#include "kiln/datasets/fashion_mnist.h"
#include "kiln/datasets/text/fortunes.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/tensor_float_32.h"
#include "kiln/layers/dtype_policy.h"

namespace kiln::configs {
namespace {

const char* const kGood = R"(model:
  input: {shape: [4]}
  layers:
    - Dense: {units: 8, activation: relu}
    - Dense: {units: "${data.num_classes}"}
data: {dataset: fashion_mnist, batch_size: 16}
loss: {SparseCategoricalCrossentropy: {from_logits: true}}
optimizer: {Adam: {learning_rate: 0.001}}
metrics: [accuracy]
callbacks:
  - EarlyStopping: {patience: 1}
training: {epochs: 1}
)";

class RunErrors : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kiln_run_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The error `kiln validate` reports for `text` (the good run with one line changed).
  std::string error_for(const std::string& text) {
    const std::string path = (dir_ / "run.yaml").string();
    std::ofstream(path) << text;
    try {
      validate_run(load_run(path));
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  }
  std::string replaced(const std::string& from, const std::string& to) {
    std::string text = kGood;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  }
  void expect_error(const std::string& from, const std::string& to,
                    const std::vector<std::string>& parts) {
    const std::string e = error_for(replaced(from, to));
    for (const std::string& part : parts)
      EXPECT_NE(e.find(part), std::string::npos) << "'" << part << "' not in: " << e;
  }
  std::filesystem::path dir_;
};

TEST_F(RunErrors, TheGoodRunValidates) {
  EXPECT_EQ(error_for(kGood), "(no error)");
}

// Validating builds the run's callbacks and checkpoint section but writes nothing: no run
// directory, backup directory or checkpoint directory appears.
TEST_F(RunErrors, ValidatingWritesNothing) {
  const std::filesystem::path out = dir_ / "out";
  std::string text = kGood;
  text += "checkpoint: {monitor: val_loss, directory: ckpt}\noutput: {dir: " + out.string() + "}\n";
  const size_t callbacks = text.find("  - EarlyStopping: {patience: 1}");
  text.insert(callbacks, "  - BackupAndRestore: {backup_dir: backup}\n");
  EXPECT_EQ(error_for(text), "(no error)");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(RunErrors, EachMistakeNamesItsPlace) {
  // A section name misspelt.
  expect_error("optimizer:", "optimiser:",
               {"run.yaml:8:12: optimiser: unknown key 'optimiser' for a run file",
                "did you mean 'optimizer'?"});
  // A layer type that does not exist.
  expect_error("- Dense: {units: 8", "- Dnese: {units: 8",
               {"run.yaml:4:14: unknown layer type 'Dnese'", "did you mean 'Dense'?"});
  // A layer argument misspelt.
  expect_error("{units: 8,", "{unit: 8,",
               {"run.yaml:4:", "unknown key 'unit'", "did you mean 'units'?"});
  // A value of the wrong type.
  expect_error("{units: 8,", "{units: eight,",
               {"run.yaml:4:", "model.layers[0].Dense.units", "expected"});
  // An unknown dataset, loss, optimizer, callback.
  expect_error(
      "dataset: fashion_mnist", "dataset: fashion_mnst",
      {"run.yaml:6:", "unknown data source 'fashion_mnst'", "did you mean 'fashion_mnist'?"});
  expect_error("{SparseCategoricalCrossentropy:", "{SparseCategoricalCrossentropi:",
               {"run.yaml:7:", "SparseCategoricalCrossentropi"});
  expect_error("{Adam: {learning_rate", "{Adamm: {learning_rate", {"run.yaml:8:", "Adamm"});
  expect_error(
      "- EarlyStopping: {patience: 1}", "- EarlyStoping: {patience: 1}",
      {"run.yaml:11:", "unknown callback 'EarlyStoping'", "did you mean 'EarlyStopping'?"});
  expect_error("{patience: 1}", "{patiense: 1}",
               {"run.yaml:11:", "unknown key 'patiense' for EarlyStopping", "'patience'"});
  // A cache for a source that decodes no files.
  expect_error("batch_size: 16}", "batch_size: 16, cache: true}",
               {"run.yaml:6:", "cache: fashion_mnist holds its examples in memory"});
  // A data fact that does not exist.
  expect_error("${data.num_classes}", "${data.num_class}",
               {"run.yaml:5:", "the data has no 'num_class'"});
  // A bad value in training.
  expect_error("training: {epochs: 1}", "training: {epochs: 0}",
               {"run.yaml:12:", "epochs must be at least 1"});
  // A strategy that does not exist; a mirrored run over two devices validates (its processes,
  // which kiln train starts, are not needed to check it).
  expect_error("training: {epochs: 1}", "training: {epochs: 1}\ndistribute: {strategy: mirored}",
               {"run.yaml:13:", "unknown distribution strategy 'mirored'", "multi_worker"});
  EXPECT_EQ(error_for(replaced("training: {epochs: 1}",
                               "training: {epochs: 1}\ndistribute: {strategy: mirrored, devices: "
                               "[cpu, cpu], bucket_mb: 4}")),
            "(no error)");
  expect_error("training: {epochs: 1}",
               "training: {epochs: 1}\ndistribute: {strategy: multi_worker, bucket_mb: 0}",
               {"run.yaml:13:", "bucket_mb must be positive"});
  expect_error("training: {epochs: 1}",
               "training: {epochs: 1}\ndistribute: {strategy: multi_worker, timeout_s: .inf}",
               {"run.yaml:13:", "timeout_s must be at least 0.001"});
  expect_error("training: {epochs: 1}", "training: {epochs: 1}\ndistribute: {timeout_s: 5}",
               {"run.yaml:13:", "timeout_s applies to data-parallel strategies"});
  // A metric that does not exist: found by validate, not at the first batch.
  expect_error("metrics: [accuracy]", "metrics: [accuracy, mea]",
               {"run.yaml:9:21:", "unknown metric 'mea'", "did you mean"});
  // A monitored value fit does not log.
  expect_error("{patience: 1}", "{patience: 1, monitor: val_acuracy}",
               {"run.yaml:11:", "monitor 'val_acuracy' is not a value fit logs",
                "did you mean 'val_accuracy'?"});
  // A device this build cannot use, a dtype policy that does not exist.
  // A GPU beyond those visible (or a build without CUDA) is refused saying which, never run on
  // the CPU instead; a device name that does not parse is refused naming the forms.
  expect_error("training: {epochs: 1}", "training: {epochs: 1}\ndistribute: {devices: [cuda:64]}",
               {"run.yaml:13:", "device cuda:64 requested, but"});
  expect_error("training: {epochs: 1}",
               "training: {epochs: 1}\ndistribute: {devices: [cpu, cuda:0]}",
               {"run.yaml:13:", "strategy 'default' trains on one device, but 2 are named"});
  expect_error("training: {epochs: 1}", "training: {epochs: 1}\ndistribute: {devices: [tpu]}",
               {"run.yaml:13:", "unknown device 'tpu' (expected cpu, cuda or cuda:N)"});
  expect_error("training: {epochs: 1}", "training: {epochs: 1}\nprecision: mixed_float61",
               {"run.yaml:13:12:", "mixed_float61"});
  // YAML syntax.
  expect_error("metrics: [accuracy]", "metrics: [accuracy", {"run.yaml:"});
  // A missing section.
  expect_error("loss: {SparseCategoricalCrossentropy: {from_logits: true}}\n", "",
               {"run.yaml: a run needs a 'loss' section"});
}

// `precision` is a policy's name or a map that may also enable TF32 on GPUs; a run that does not
// name TF32 turns it off again.
TEST_F(RunErrors, PrecisionTakesAPolicyAndTensorFloat32) {
  EXPECT_EQ(error_for(replaced("training: {epochs: 1}",
                               "training: {epochs: 1}\nprecision: {policy: mixed_bfloat16, "
                               "tensor_float_32: true}")),
            "(no error)");
  EXPECT_EQ(layers::global_policy().name, "mixed_bfloat16");
  EXPECT_TRUE(tensor_float_32_execution_enabled());
  EXPECT_EQ(error_for(kGood), "(no error)");
  EXPECT_EQ(layers::global_policy().name, "float32");
  EXPECT_FALSE(tensor_float_32_execution_enabled());
  expect_error("training: {epochs: 1}", "training: {epochs: 1}\nprecision: {policy: mixed_float61}",
               {"run.yaml:13:", "mixed_float61"});
  expect_error("training: {epochs: 1}", "training: {epochs: 1}\nprecision: {tf32: true}",
               {"run.yaml:13:", "tf32"});
}

TEST_F(RunErrors, OptimizerSchedulesTakeTheSameForms) {
  EXPECT_EQ(error_for(replaced("{Adam: {learning_rate: 0.001}}",
                               "{Adam: {learning_rate: {ExponentialDecay: {initial_learning_rate: "
                               "0.01, decay_steps: 100, decay_rate: 0.9}}}}")),
            "(no error)");
  expect_error("{Adam: {learning_rate: 0.001}}",
               "{Adam: {learning_rate: {ExponentialDecai: {initial_learning_rate: 0.01}}}}",
               {"run.yaml:8:", "unknown learning-rate schedule 'ExponentialDecai'",
                "did you mean 'ExponentialDecay'?"});
}

TEST_F(RunErrors, MetricsTakeTheSameForms) {
  std::string text = replaced("metrics: [accuracy]",
                              "metrics: [accuracy, {SparseTopKCategoricalAccuracy: {k: 3, name: "
                              "top3}}]");
  text.replace(text.find("{patience: 1}"), 13, "{monitor: val_top3}");
  EXPECT_EQ(error_for(text), "(no error)");  // the metric's name is a monitor
  expect_error("metrics: [accuracy]", "metrics: [{SparseTopKCategoricalAccuracy: {kk: 3}}]",
               {"run.yaml:9:", "unknown key 'kk' for metric SparseTopKCategoricalAccuracy",
                "did you mean 'k'"});
}

// Rates no run can train with are refused before training, naming the optimizer or schedule,
// the value and where it was given.
TEST_F(RunErrors, LearningRatesThatCannotTrainAreRefused) {
  expect_error("learning_rate: 0.001", "learning_rate: .nan",
               {"run.yaml:8:", "optimizer 'adam': learning_rate must be a finite number, got nan"});
  expect_error("learning_rate: 0.001", "learning_rate: .inf",
               {"run.yaml:8:", "learning_rate must be a finite number, got inf"});
  expect_error("learning_rate: 0.001", "learning_rate: -0.001",
               {"run.yaml:8:", "learning_rate must be >= 0, got -0.001"});
  expect_error("learning_rate: 0.001",
               "learning_rate: {ExponentialDecay: {initial_learning_rate: 0.01, decay_steps: .inf, "
               "decay_rate: 0.9}}",
               {"run.yaml:8:", "ExponentialDecay: decay_steps must be a finite number, got inf"});
  expect_error("learning_rate: 0.001",
               "learning_rate: {CosineDecay: {initial_learning_rate: 0.01, decay_steps: 10, "
               "alpha: .nan}}",
               {"run.yaml:8:", "CosineDecay: alpha must be a finite number, got nan"});
}

TEST_F(RunErrors, ANegativeInputDimIsRefusedAtItsPlace) {
  expect_error("input: {shape: [4]}", "input: {shape: [-5]}",
               {"run.yaml:2:19: model.input.shape[0]: -5 is not a dimension: give a size >= 0, "
                "or null for any size"});
}

TEST_F(RunErrors, FunctionalGraphReferencesAreChecked) {
  const std::string run = R"(model:
  inputs:
    image: {shape: [4]}
  layers:
    - {name: hidden, Dense: {units: 8}, inputs: image}
    - {name: out, Dense: {units: 2}, inputs: hiden}
  outputs: [out]
data: {dataset: fashion_mnist}
loss: mse
)";
  const std::string e = error_for(run);
  EXPECT_NE(e.find("run.yaml:6:"), std::string::npos) << e;
  EXPECT_NE(e.find("no input or earlier layer named 'hiden' (did you mean 'hidden'?)"),
            std::string::npos)
      << e;
}

TEST(ShippedConfigs, AllValidate) {
  examples::register_custom_parts();  // fashion_mnist_custom_layer.yaml names them
  // fashion_mnist_folder_cnn.yaml reads image folders that example_image_folders writes: a few
  // images of each split, where the run file looks (relative to the working directory).
  if (!std::filesystem::exists("data/fashion-mnist-png"))
    examples::write_fashion_mnist_folders("data/fashion-mnist-png", examples::ImageFileFormat::png,
                                          100, 20, datasets::default_fashion_mnist_dir());
  // fortunes_text_folder.yaml reads the text folders example_text_folders writes.
  if (!std::filesystem::exists("data/fortunes-text"))
    examples::write_fortune_folders("data/fortunes-text", 20, datasets::default_fortunes_dir());
  size_t n = 0;
  for (const auto& f :
       std::filesystem::directory_iterator(std::string(KILN_SOURCE_DIR) + "/configs")) {
    if (f.path().extension() != ".yaml") continue;
    SCOPED_TRACE(f.path().string());
    EXPECT_NO_THROW(validate_run(load_run(f.path().string())));
    ++n;
  }
  EXPECT_GE(n, 3u);
}

}  // namespace
}  // namespace kiln::configs
