// The reference YAML runs (`kiln train configs/...`) on the stand-in GPU: a run that names
// cuda:0 trains there, and its checkpoint, evaluated by a run that names the CPU, gives the test
// scores the GPU run reported.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/configs/run.h"
#include "kiln/framework/core/log.h"

namespace kiln::configs {
namespace {

class YamlRunOnDevice : public ::testing::TestWithParam<std::string> {};

TEST_P(YamlRunOnDevice, TrainsOnTheGpuItNamesAndEvaluatesOnTheCpu) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kiln_yaml_device_" + GetParam() + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const std::string file = std::string(KILN_SOURCE_DIR) + "/configs/" + GetParam() + ".yaml";
  const std::vector<std::string> small = {"data.limit=600", "training.epochs=1",
                                          "output.dir=" + dir.string()};
  const auto on = [&](const std::string& device) {
    std::vector<std::string> overrides = small;
    overrides.push_back("distribute={strategy: one_device, devices: [" + device + "]}");
    return load_run(file, overrides);
  };
  std::vector<std::string> lines;
  const LogSink previous =
      set_log_sink([&](LogLevel, std::string_view line) { lines.emplace_back(line); });
  const TrainResult trained = train(on("cuda:0"), {.verbose = 0});
  set_log_sink(previous);
  EXPECT_THAT(lines,
              ::testing::Contains(::testing::HasSubstr("runs on cuda:0 (named in compile)")));
  ASSERT_TRUE(trained.test_scores.contains("accuracy"));

  const LoadedRun loaded = evaluate(on("cpu"), (dir / "latest.checkpoint.h5").string());
  EXPECT_EQ(loaded.model->device(), Device::cpu());
  for (const auto& [name, score] : trained.test_scores)
    EXPECT_NEAR(loaded.test_scores.at(name), score, 1e-4 * std::max(1.0, std::abs(score))) << name;
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(ReferenceConfigs, YamlRunOnDevice,
                         ::testing::Values("fashion_mnist_mlp", "fashion_mnist_cnn",
                                           "fortunes_langid_lstm"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace kiln::configs
