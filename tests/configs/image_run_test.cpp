// Training from a folder of image files: Fashion-MNIST written as PNG files (from the Debian
// package's IDX files) trains the same model, with the same seed, to the test accuracy that
// training from the IDX files reaches, within 0.01; only the order the examples come in
// differs. And `kiln validate` finds mistakes in the image_directory source.
#include <gmock/gmock.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "apps/examples/image_folders.h"
#include "kiln/configs/run.h"
#include "kiln/datasets/fashion_mnist.h"
#include "kiln/framework/core/error.h"
#include "tests/test_support/expect_error.h"

namespace kiln::configs {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kTrain = 18000, kTest = 3000;

class ImageRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("kiln_image_run_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    examples::write_fashion_mnist_folders((dir_ / "png").string(), examples::ImageFileFormat::png,
                                          kTrain, kTest, datasets::default_fashion_mnist_dir());
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  // The same MLP over either source: a Rescaling layer brings both to [0, 1] (the IDX loader
  // already divides by 255) and keeps the layers, and so the seeded weights, alike.
  static Config run_for(const std::string& input_shape, double scale, const std::string& data,
                        const std::string& out) {
    const std::string path = (dir_ / (out + ".yaml")).string();
    std::ofstream(path) << "model:\n"
                           "  input: {shape: "
                        << input_shape
                        << "}\n"
                           "  layers:\n"
                           "    - Rescaling: {scale: "
                        << scale
                        << "}\n"
                           "    - Flatten: {}\n"
                           "    - Dense: {units: 128, activation: relu}\n"
                           "    - Dense: {units: 10}\n"
                           "data:\n"
                        << data
                        << "  batch_size: 64\n"
                           "loss: {SparseCategoricalCrossentropy: {from_logits: true}}\n"
                           "optimizer: {Adam: {learning_rate: 0.001}}\n"
                           "metrics: [accuracy]\n"
                           "training: {epochs: 4, seed: 7}\n"
                           "output: {dir: "
                        << (dir_ / out).string() << "}\n";
    return load_run(path);
  }

  static std::filesystem::path dir_;
};

std::filesystem::path ImageRun::dir_;

TEST_F(ImageRun, AFolderOfPngsTrainsAsTheIdxFilesDo) {
  // limit N takes N training images and N/6 test images of the IDX files.
  const TrainResult idx =
      train(run_for("[28, 28]", 1.0,
                    "  fashion_mnist: {}\n  limit: " + std::to_string(kTrain) + "\n", "idx"),
            {.verbose = 0});
  const std::string png = (dir_ / "png").string();
  const TrainResult folder =
      train(run_for("[28, 28, 1]", 1.0 / 255,
                    "  image_directory: {directory: " + png + "/train, test_directory: " + png +
                        "/test, color_mode: grayscale, image_size: [28, 28]}\n",
                    "folder"),
            {.verbose = 0});
  ASSERT_EQ(kTest, kTrain / 6);  // the same test images
  const double a = idx.test_scores.at("accuracy"), b = folder.test_scores.at("accuracy");
  std::cout << "test accuracy: IDX files " << a << ", PNG folder " << b << "\n";
  EXPECT_GT(a, 0.8);
  EXPECT_NEAR(a, b, 0.01) << "IDX " << a << ", folder " << b;
}

// A split that leaves no images is refused before training, as Keras refuses it.
TEST_F(ImageRun, ASplitWithoutImagesIsAnError) {
  const std::filesystem::path one = dir_ / "one";
  std::filesystem::create_directories(one / "only_class");
  const std::filesystem::directory_entry image =
      *std::filesystem::directory_iterator(dir_ / "png" / "test" / "0_t-shirt_top");
  std::filesystem::copy_file(image.path(), one / "only_class" / "0.png");
  kiln::testing::expect_error(
      [&] {
        (void)train(run_for("[28, 28, 1]", 1.0,
                            "  image_directory: {directory: " + one.string() +
                                ", color_mode: grayscale, image_size: [28, 28]}\n"
                                "  validation_split: 0.5\n",
                            "split"),
                    {});
      },
      "validation_split 0.5 of 1 images leaves no validation images");
}

TEST_F(ImageRun, ValidateFindsMistakesInTheSource) {
  const std::string png = (dir_ / "png").string();
  const auto validate = [&](const std::string& source) {
    validate_run(run_for("[28, 28, 1]", 1.0, "  image_directory: " + source + "\n", "checked"));
  };
  const auto error_for = [&](const std::string& source) {
    return kiln::testing::error_of([&] { validate(source); });
  };
  validate("{directory: " + png + "/train, color_mode: grayscale, image_size: [28, 28]}");
  EXPECT_THAT(error_for("{directory: " + png + "/nothing}"), HasSubstr("no such directory"));
  EXPECT_THAT(error_for("{directory: " + png + "/train, color_mode: greyscale}"),
              HasSubstr("color_mode must be grayscale, rgb or rgba, got 'greyscale'"));
  EXPECT_THAT(error_for("{directory: " + png + "/train, image_size: [28]}"),
              HasSubstr("image_size must be [height, width]"));
  EXPECT_THAT(error_for("{directory: " + png + "/train, label_mode: sparse}"),
              HasSubstr("unknown label_mode 'sparse'"));
  EXPECT_THAT(error_for("{directory: " + png + "/train, interpolation: lanczos7}"),
              HasSubstr("unknown interpolation 'lanczos7'"));
  EXPECT_THAT(error_for("{directory: " + png + "/train, image_sise: [28, 28]}"),
              HasSubstr("unknown key 'image_sise' for image_directory"));
}

}  // namespace
}  // namespace kiln::configs
