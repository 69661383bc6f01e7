#pragma once
// Fashion-MNIST from the Debian package dataset-fashion-mnist.
#include <string>

#include "framework/tensor/tensor.h"

namespace kiln::datasets {

struct LabeledImages {
  Tensor images;  // float32 [N, 28, 28], scaled to [0, 1]
  Tensor labels;  // int64 [N], classes 0..9
};

struct FashionMnist {
  LabeledImages train;
  LabeledImages test;
};

// The package's install location; KILN_FASHION_MNIST_DIR overrides it.
std::string default_fashion_mnist_dir();
// Throws kiln::Error naming the directory (and how to install the data) when files are missing.
FashionMnist load_fashion_mnist(const std::string& dir = default_fashion_mnist_dir());

}  // namespace kiln::datasets
