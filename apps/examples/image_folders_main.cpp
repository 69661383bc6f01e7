// Writes Fashion-MNIST as image folders (apps/examples/image_folders.h) for the image_directory
// source: `example_image_folders OUT [--format png|jpeg] [--limit N] [--test-limit N]`, e.g.
// `build/apps/example_image_folders data/fashion-mnist-png` before
// `kiln train configs/fashion_mnist_folder_cnn.yaml`.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "apps/examples/image_folders.h"
#include "kiln/datasets/fashion_mnist.h"
#include "kiln/framework/core/error.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT [--format png|jpeg] [--limit N] [--test-limit N]\n",
                 argv[0]);
    return 2;
  }
  kiln::examples::ImageFileFormat format = kiln::examples::ImageFileFormat::png;
  int64_t limit = 0, test_limit = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--format" && (value == "png" || value == "jpeg")) {
      format = value == "png" ? kiln::examples::ImageFileFormat::png
                              : kiln::examples::ImageFileFormat::jpeg;
    } else if (key == "--limit") {
      limit = std::atoll(value.c_str());
    } else if (key == "--test-limit") {
      test_limit = std::atoll(value.c_str());
    } else {
      std::fprintf(stderr, "unknown option %s %s\n", key.c_str(), value.c_str());
      return 2;
    }
  }
  try {
    const int64_t n = kiln::examples::write_fashion_mnist_folders(
        argv[1], format, limit, test_limit, kiln::datasets::default_fashion_mnist_dir());
    std::printf("%lld images in %s/train and %s/test\n", static_cast<long long>(n), argv[1],
                argv[1]);
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
