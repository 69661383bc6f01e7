#include "kiln/datasets/fashion_mnist.h"

#include <cstdlib>
#include <filesystem>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

void check_installed(const std::string& dir) {
  constexpr const char* kHint =
      ": install the Debian package dataset-fashion-mnist (scripts/bootstrap does) or set "
      "KILN_FASHION_MNIST_DIR to a directory holding its four .gz files";
  KILN_CHECK(std::filesystem::is_directory(dir), "Fashion-MNIST not found at ", dir, kHint);
  for (const char* file : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                           "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
    KILN_CHECK(std::filesystem::exists(std::filesystem::path(dir) / file), "Fashion-MNIST at ", dir,
               " has no ", file, kHint);
}

}  // namespace

std::string default_fashion_mnist_dir() {
  if (const char* env = std::getenv("KILN_FASHION_MNIST_DIR")) return env;
  return "/usr/share/datasets/fashion-mnist";
}

FashionMnist load_fashion_mnist(const std::string& dir) {
  check_installed(dir);
  return {load_mnist_style(dir, "train"), load_mnist_style(dir, "t10k")};
}

Dataset fashion_mnist_dataset(Split split, const std::string& dir) {
  check_installed(dir);
  const LabeledImages data = load_mnist_style(dir, split == Split::train ? "train" : "t10k");
  return Dataset::from_tensor_slices({data.images, data.labels});
}

}  // namespace kiln::datasets
