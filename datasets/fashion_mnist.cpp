#include "datasets/fashion_mnist.h"

#include <cstdlib>
#include <filesystem>

#include "datasets/idx_file.h"
#include "framework/core/error.h"

namespace kiln::datasets {
namespace {

LabeledImages load_split(const std::string& dir, const std::string& prefix) {
  const IdxArray images = read_idx_u8(dir + "/" + prefix + "-images-idx3-ubyte.gz");
  const IdxArray labels = read_idx_u8(dir + "/" + prefix + "-labels-idx1-ubyte.gz");
  KILN_CHECK(images.dims.size() == 3 && labels.dims.size() == 1 && images.dims[0] == labels.dims[0],
             dir, ": ", prefix, " images and labels do not match");
  const int64_t n = images.dims[0];
  Tensor x = Tensor::empty({n, images.dims[1], images.dims[2]}, DType::f32);
  float* px = x.data<float>();
  for (size_t i = 0; i < images.data.size(); ++i)
    px[i] = static_cast<float>(images.data[i]) / 255.0f;
  Tensor y = Tensor::empty({n}, DType::i64);
  int64_t* py = y.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) py[i] = labels.data[static_cast<size_t>(i)];
  return {x, y};
}

}  // namespace

std::string default_fashion_mnist_dir() {
  if (const char* env = std::getenv("KILN_FASHION_MNIST_DIR")) return env;
  return "/usr/share/datasets/fashion-mnist";
}

FashionMnist load_fashion_mnist(const std::string& dir) {
  KILN_CHECK(std::filesystem::is_directory(dir), "Fashion-MNIST not found at ", dir,
             ": install the Debian package dataset-fashion-mnist (scripts/bootstrap does) or set "
             "KILN_FASHION_MNIST_DIR");
  return {load_split(dir, "train"), load_split(dir, "t10k")};
}

}  // namespace kiln::datasets
