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

// Keys' cubic convolution with a = -0.5 over the four inputs around each output, as TensorFlow's
// half-pixel bicubic computes it: the kernel's weights read from a table at 1/1024 steps of the
// fractional position, taps outside the input given no weight, and the others renormalized.
struct CubicSample {
  int64_t index[4];
  float weight[4];
};

constexpr int kCubicSteps = 1024;

// Entry 2i: the kernel at i / kCubicSteps; entry 2i + 1: at 1 + i / kCubicSteps.
const std::vector<float>& cubic_table() {
  static const std::vector<float> table = [] {
    constexpr double a = -0.5;
    std::vector<float> t(2 * (kCubicSteps + 1));
    for (int i = 0; i <= kCubicSteps; ++i) {
      float x = static_cast<float>(i * 1.0 / kCubicSteps);
      t[2 * i] = static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
      x += 1.0f;
      t[2 * i + 1] = static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
    }
    return t;
  }();
  return table;
}

std::vector<CubicSample> cubic_samples(int64_t in, int64_t out) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  const std::vector<float>& table = cubic_table();
  std::vector<CubicSample> samples(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const float at = (static_cast<float>(o) + 0.5f) * scale - 0.5f;
    const auto base = static_cast<int64_t>(std::floor(at));
    const auto step =
        static_cast<size_t>(std::lrint((at - static_cast<float>(base)) * kCubicSteps));
    const float w[4] = {table[2 * step + 1], table[2 * step], table[2 * (kCubicSteps - step)],
                        table[2 * (kCubicSteps - step) + 1]};
    CubicSample& s = samples[static_cast<size_t>(o)];
    float total = 0;
    for (int k = 0; k < 4; ++k) {
      const int64_t i = base - 1 + k;
      s.index[k] = std::clamp<int64_t>(i, 0, in - 1);
      s.weight[k] = i == s.index[k] ? w[k] : 0.0f;
      total += s.weight[k];
    }
    const float inverse = 1.0f / total;
    for (float& weight : s.weight) weight *= inverse;
  }
  return samples;
}

// Along x for each of the four rows, then along y.
void resize_bicubic(const float* in, int64_t in_h, int64_t in_w, int64_t c, float* out,
                    int64_t out_h, int64_t out_w) {
  const std::vector<CubicSample> ys = cubic_samples(in_h, out_h), xs = cubic_samples(in_w, out_w);
  for (const CubicSample& sy : ys)
    for (const CubicSample& sx : xs)
      for (int64_t k = 0; k < c; ++k) {
        float value = 0;
        for (int r = 0; r < 4; ++r) {
          const float* row = in + sy.index[r] * in_w * c + k;
          float along_x = 0;
          for (int q = 0; q < 4; ++q) along_x += sx.weight[q] * row[sx.index[q] * c];
          value += sy.weight[r] * along_x;
        }
        *out++ = value;
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
  if (name == "bicubic") return Interpolation::bicubic;
  throw Error(detail::concat("unknown interpolation '", name, "' (bilinear, nearest or bicubic)"));
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
  const auto resize = method == Interpolation::bilinear  ? resize_bilinear
                      : method == Interpolation::bicubic ? resize_bicubic
                                                         : resize_nearest;
  resize(in.data<float>(), in.dim(0), in.dim(1), in.dim(2), out.data<float>(), height, width);
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
