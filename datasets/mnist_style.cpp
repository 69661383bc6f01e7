#include "kiln/datasets/mnist_style.h"

#include "kiln/datasets/idx_file.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {

LabeledImages load_mnist_style(const std::string& dir, const std::string& split) {
  const IdxArray images = read_idx_u8(dir + "/" + split + "-images-idx3-ubyte.gz");
  const IdxArray labels = read_idx_u8(dir + "/" + split + "-labels-idx1-ubyte.gz");
  KILN_CHECK(images.dims.size() == 3 && labels.dims.size() == 1 && images.dims[0] == labels.dims[0],
             dir, ": ", split, " images and labels do not match");
  const int64_t n = images.dims[0];
  Tensor x = Tensor::empty({n, images.dims[1], images.dims[2]}, DType::f32, Device::cpu());
  float* px = x.data<float>();
  for (size_t i = 0; i < images.data.size(); ++i)
    px[i] = static_cast<float>(images.data[i]) / 255.0f;
  Tensor y = Tensor::empty({n}, DType::i64, Device::cpu());
  int64_t* py = y.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) py[i] = labels.data[static_cast<size_t>(i)];
  return {x, y};
}

}  // namespace kiln::datasets
