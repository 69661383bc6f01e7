#include "kiln/datasets/image/resize_image.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::datasets {
namespace {

// Where output index o samples the input: the two neighbours and the weight of the upper one
// (TensorFlow's half-pixel scaler and its clamping at the edges).
struct Sample {
  int64_t lower, upper;
  float lerp;
};

std::vector<Sample> bilinear_samples(int64_t in, int64_t out) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<Sample> samples(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float at = (static_cast<float>(o) + 0.5f) * scale - 0.5f;
    const float floor = std::floor(at);
    samples[static_cast<size_t>(o)] = {
        std::max<int64_t>(static_cast<int64_t>(floor), 0),
        std::min<int64_t>(static_cast<int64_t>(std::ceil(at)), in - 1), at - floor};
  }
  return samples;
}

std::vector<int64_t> nearest_samples(int64_t in, int64_t out) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> samples(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o)
    samples[static_cast<size_t>(o)] = std::min<int64_t>(
        static_cast<int64_t>(std::floor((static_cast<float>(o) + 0.5f) * scale)), in - 1);
  return samples;
}

void resize_bilinear(const float* in, int64_t in_h, int64_t in_w, int64_t c, float* out,
                     int64_t out_h, int64_t out_w) {
  const std::vector<Sample> ys = bilinear_samples(in_h, out_h), xs = bilinear_samples(in_w, out_w);
  for (int64_t y = 0; y < out_h; ++y) {
    const Sample& sy = ys[static_cast<size_t>(y)];
    const float* top_row = in + sy.lower * in_w * c;
    const float* bottom_row = in + sy.upper * in_w * c;
    for (int64_t x = 0; x < out_w; ++x) {
      const Sample& sx = xs[static_cast<size_t>(x)];
      for (int64_t k = 0; k < c; ++k) {
        const float top_left = top_row[sx.lower * c + k], top_right = top_row[sx.upper * c + k];
        const float bottom_left = bottom_row[sx.lower * c + k];
        const float bottom_right = bottom_row[sx.upper * c + k];
        const float top = top_left + (top_right - top_left) * sx.lerp;
        const float bottom = bottom_left + (bottom_right - bottom_left) * sx.lerp;
        *out++ = top + (bottom - top) * sy.lerp;
      }
    }
  }
}

void resize_nearest(const float* in, int64_t in_h, int64_t in_w, int64_t c, float* out,
                    int64_t out_h, int64_t out_w) {
  const std::vector<int64_t> ys = nearest_samples(in_h, out_h), xs = nearest_samples(in_w, out_w);
  for (const int64_t y : ys)
    for (const int64_t x : xs) out = std::copy_n(in + (y * in_w + x) * c, c, out);
}

}  // namespace

Interpolation interpolation(const std::string& name) {
  if (name == "bilinear") return Interpolation::bilinear;
  if (name == "nearest") return Interpolation::nearest;
  throw Error(detail::concat("unknown interpolation '", name, "' (bilinear or nearest)"));
}

Tensor resize_image(const Tensor& image, int64_t height, int64_t width, Interpolation method) {
  KILN_CHECK(image.rank() == 3, "resize_image: expected an image [height, width, channels], got ",
             describe(image.meta()));
  KILN_CHECK(height > 0 && width > 0, "resize_image: the size must be positive, got ", height, "x",
             width);
  KILN_CHECK(image.dim(0) > 0 && image.dim(1) > 0, "resize_image: the image is empty (",
             describe(image.meta()), ")");
  const Tensor in = ops::cast(image, DType::f32);
  // The same size samples every pixel at its own center: a copy, in either method.
  if (in.dim(0) == height && in.dim(1) == width)
    return in.dtype() == image.dtype() ? in.clone() : in;
  Tensor out = Tensor::empty({height, width, image.dim(2)}, DType::f32, Device::cpu());
  (method == Interpolation::bilinear ? resize_bilinear : resize_nearest)(
      in.data<float>(), in.dim(0), in.dim(1), in.dim(2), out.data<float>(), height, width);
  return out;
}

Tensor crop_to_aspect_ratio(const Tensor& image, int64_t height, int64_t width) {
  const int64_t h = image.dim(0), w = image.dim(1);
  // Keras's arithmetic: the crop's side from the other side and the target ratio, in floats.
  const auto crop_h = std::min(
      h, static_cast<int64_t>(static_cast<double>(w * height) / static_cast<double>(width)));
  const auto crop_w = std::min(
      w, static_cast<int64_t>(static_cast<double>(h * width) / static_cast<double>(height)));
  if (crop_h == h && crop_w == w) return image;
  const auto top = static_cast<int64_t>(static_cast<double>(h - crop_h) / 2);
  const auto left = static_cast<int64_t>(static_cast<double>(w - crop_w) / 2);
  return ops::slice(image, {top, left, 0}, {crop_h, crop_w, -1});
}

}  // namespace kiln::datasets
