#pragma once
// Fashion-MNIST from the Debian package dataset-fashion-mnist.
#include <string>

#include "kiln/datasets/dataset.h"
#include "kiln/datasets/mnist_style.h"

namespace kiln::datasets {

struct FashionMnist {
  LabeledImages train;  // 60000 images [28, 28], classes 0..9
  LabeledImages test;   // 10000
};

// The package's install location; KILN_FASHION_MNIST_DIR overrides it.
std::string default_fashion_mnist_dir();
// Throws kiln::Error naming the directory (and how to install the data) when files are missing.
FashionMnist load_fashion_mnist(const std::string& dir = default_fashion_mnist_dir());

enum class Split { train, test };
// One split as a Dataset of (image float32[28, 28], label int64[]) elements.
Dataset fashion_mnist_dataset(Split split = Split::train,
                              const std::string& dir = default_fashion_mnist_dir());

}  // namespace kiln::datasets
