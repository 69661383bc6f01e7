#pragma once
// Image classification sets shipped in MNIST's layout (MNIST, Fashion-MNIST, KMNIST):
// <dir>/<split>-images-idx3-ubyte.gz and <dir>/<split>-labels-idx1-ubyte.gz.
#include <string>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

struct LabeledImages {
  Tensor images;  // float32 [N, H, W], scaled to [0, 1]
  Tensor labels;  // int64 [N]
};

// Reads one split ("train" or "t10k"). Throws kiln::Error naming the file when it is missing or
// corrupt, or when images and labels disagree.
LabeledImages load_mnist_style(const std::string& dir, const std::string& split);

}  // namespace kiln::datasets
