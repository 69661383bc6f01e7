#include "kiln/framework/ops/image_resampling.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::ops {
namespace {

struct NamedMethod {
  std::string_view name;
  Interpolation method;
};

constexpr NamedMethod kMethods[] = {
    {"bilinear", Interpolation::bilinear}, {"nearest", Interpolation::nearest},
    {"bicubic", Interpolation::bicubic},   {"area", Interpolation::area},
    {"lanczos3", Interpolation::lanczos3}, {"lanczos5", Interpolation::lanczos5}};

// A row from (index, weight) taps, indices within a short run; taps on the same index add up.
ResampleRow row_of(const std::vector<std::pair<int64_t, float>>& taps) {
  ResampleRow row;
  if (taps.empty()) return row;
  int64_t last = taps.front().first;
  row.start = last;
  for (const auto& [index, weight] : taps) {
    row.start = std::min(row.start, index);
    last = std::max(last, index);
  }
  row.weights.assign(static_cast<size_t>(last - row.start + 1), 0.0f);
  for (const auto& [index, weight] : taps)
    row.weights[static_cast<size_t>(index - row.start)] += weight;
  return row;
}

float half_pixel(int64_t o, float scale) {
  return (static_cast<float>(o) + 0.5f) * scale - 0.5f;
}

ResampleRow bilinear_row(int64_t o, int64_t in, float scale) {
  const float at = half_pixel(o, scale);
  const float floor = std::floor(at), lerp = at - floor;
  const int64_t lower = std::max<int64_t>(static_cast<int64_t>(floor), 0);
  const int64_t upper = std::min<int64_t>(static_cast<int64_t>(std::ceil(at)), in - 1);
  // One pixel on both sides (at the edges) is that pixel exactly, as TensorFlow's lerp gives.
  if (lower == upper) return {lower, {1.0f}};
  return row_of({{lower, 1.0f - lerp}, {upper, lerp}});
}

ResampleRow nearest_row(int64_t o, int64_t in, float scale) {
  return {std::min<int64_t>(
              static_cast<int64_t>(std::floor((static_cast<float>(o) + 0.5f) * scale)), in - 1),
          {1.0f}};
}

constexpr int kCubicSteps = 1024;

// ResizeBicubic's table of Keys' kernel (a = -0.5): entry 2i at i / kCubicSteps, entry 2i + 1
// at 1 + i / kCubicSteps.
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

ResampleRow bicubic_row(int64_t o, int64_t in, float scale) {
  const std::vector<float>& table = cubic_table();
  const float at = half_pixel(o, scale);
  const auto base = static_cast<int64_t>(std::floor(at));
  const auto step = static_cast<size_t>(std::lrint((at - static_cast<float>(base)) * kCubicSteps));
  const float w[4] = {table[2 * step + 1], table[2 * step], table[2 * (kCubicSteps - step)],
                      table[2 * (kCubicSteps - step) + 1]};
  std::vector<std::pair<int64_t, float>> taps;
  float total = 0;
  for (int k = 0; k < 4; ++k) {
    const int64_t i = base - 1 + k;
    if (i < 0 || i >= in) continue;
    taps.emplace_back(i, w[k]);
    total += w[k];
  }
  const float inverse = 1.0f / total;
  for (auto& tap : taps) tap.second *= inverse;
  return row_of(taps);
}

// ResizeArea: the cells [i, i + 1) that output o's box [o * scale, (o + 1) * scale) overlaps,
// each weighted by its overlap over the box's width.
ResampleRow area_row(int64_t o, int64_t in, float scale) {
  const float from = static_cast<float>(o) * scale, to = static_cast<float>(o + 1) * scale;
  const auto first = static_cast<int64_t>(std::floor(from));
  const auto end = static_cast<int64_t>(std::ceil(to));
  // TensorFlow's overlap of cell v with the box (for the first and the last cell).
  const auto overlap = [&](int64_t v) {
    const auto f = static_cast<float>(v);
    return f < from ? (f + 1 > to ? scale : f + 1 - from) : (f + 1 > to ? to - f : 1.0f);
  };
  const float inverse = 1.0f / scale;
  std::vector<std::pair<int64_t, float>> taps;
  for (int64_t v = first; v < end; ++v) {
    const float cell = v == first ? overlap(first) : v == end - 1 ? overlap(end - 1) : 1.0f;
    taps.emplace_back(std::min(v, in - 1), cell * inverse);
  }
  return row_of(taps);
}

// ScaleAndTranslate's kernels.
struct Kernel {
  float radius;
  std::function<float(float)> at;  // of |x|
};

Kernel triangle() {
  return {1.0f, [](float x) { return std::max(0.0f, 1.0f - x); }};
}

Kernel keys_cubic() {
  return {2.0f, [](float x) {
            if (x >= 2.0f) return 0.0f;
            if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
            return ((1.5f * x - 2.5f) * x) * x + 1.0f;
          }};
}

Kernel lanczos(float radius) {
  return {radius, [radius](float x) {
            constexpr float kPi = std::numbers::pi_v<float>;
            if (x > radius) return 0.0f;
            if (x <= 1e-3f) return 1.0f;  // the limit of sin(x) / x at 0
            return radius * std::sin(kPi * x) * std::sin(kPi * x / radius) / (kPi * kPi * x * x);
          }};
}

// ScaleAndTranslate's span for output o (no translation): the kernel centered on the output
// pixel's center in input coordinates, widened by the downscaling factor when antialiasing.
ResampleRow kernel_row(int64_t o, int64_t in, int64_t out, const Kernel& kernel, bool antialias) {
  const float scale = static_cast<float>(out) / static_cast<float>(in);
  const float inverse_scale = 1.0f / scale;
  const float kernel_scale = antialias ? std::max(inverse_scale, 1.0f) : 1.0f;
  const float sample = (static_cast<float>(o) + 0.5f) * inverse_scale;
  const auto first = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(sample - kernel.radius * kernel_scale - 0.5f)), 0, in - 1);
  const auto last = std::clamp<int64_t>(
      static_cast<int64_t>(std::floor(sample + kernel.radius * kernel_scale - 0.5f)), 0, in - 1);
  const float one_over_kernel_scale = 1.0f / kernel_scale;
  std::vector<std::pair<int64_t, float>> taps;
  float total = 0;
  for (int64_t i = first; i <= last; ++i) {
    const float w =
        kernel.at(std::abs((static_cast<float>(i) + 0.5f - sample) * one_over_kernel_scale));
    taps.emplace_back(i, w);
    total += w;
  }
  if (std::abs(total) < 1000.0f * std::numeric_limits<float>::min()) return {first, {}};
  const float inverse = 1.0f / total;
  for (auto& tap : taps) tap.second *= inverse;
  return row_of(taps);
}

// The resampling matrix [out, in] in `dtype`.
Tensor resampling_matrix(int64_t in, int64_t out, Interpolation method, bool antialias, DType dtype,
                         const Device& device) {
  std::vector<double> m(static_cast<size_t>(in * out), 0.0);
  const std::vector<ResampleRow> rows = resample_rows(in, out, method, antialias);
  for (int64_t o = 0; o < out; ++o) {
    const ResampleRow& row = rows[static_cast<size_t>(o)];
    for (size_t k = 0; k < row.weights.size(); ++k)
      m[static_cast<size_t>(o * in + row.start) + k] = row.weights[k];
  }
  return from_vector(m, {out, in}, dtype, device);
}

}  // namespace

Interpolation parse_interpolation(std::string_view name) {
  for (const NamedMethod& m : kMethods)
    if (m.name == name) return m.method;
  throw Error(detail::concat("unknown interpolation '", name,
                             "' (bilinear, nearest, bicubic, area, lanczos3 or lanczos5)"));
}

std::string_view interpolation_name(Interpolation method) {
  for (const NamedMethod& m : kMethods)
    if (m.method == method) return m.name;
  return "bilinear";
}

ImageWindow aspect_ratio_window(int64_t h, int64_t w, int64_t height, int64_t width) {
  KILN_CHECK(h > 0 && w > 0 && height > 0 && width > 0, "cropping a ", h, "x", w,
             " image to the aspect ratio of ", height, "x", width, ": sizes must be positive");
  ImageWindow window;
  window.height = std::max<int64_t>(
      std::min(h,
               static_cast<int64_t>(static_cast<double>(w * height) / static_cast<double>(width))),
      1);
  window.width = std::max<int64_t>(std::min(w, static_cast<int64_t>(static_cast<double>(h * width) /
                                                                    static_cast<double>(height))),
                                   1);
  window.top = (h - window.height) / 2;
  window.left = (w - window.width) / 2;
  return window;
}

std::vector<ResampleRow> resample_rows(int64_t in, int64_t out, Interpolation method,
                                       bool antialias) {
  KILN_CHECK(in > 0 && out > 0, "resampling ", in, " pixels to ", out,
             ": both sizes must be positive");
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<ResampleRow> rows;
  rows.reserve(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) switch (method) {
      case Interpolation::nearest:
        rows.push_back(nearest_row(o, in, scale));
        break;
      case Interpolation::area:
        rows.push_back(area_row(o, in, scale));
        break;
      case Interpolation::bilinear:
        rows.push_back(antialias ? kernel_row(o, in, out, triangle(), true)
                                 : bilinear_row(o, in, scale));
        break;
      case Interpolation::bicubic:
        rows.push_back(antialias ? kernel_row(o, in, out, keys_cubic(), true)
                                 : bicubic_row(o, in, scale));
        break;
      case Interpolation::lanczos3:
        rows.push_back(kernel_row(o, in, out, lanczos(3.0f), antialias));
        break;
      case Interpolation::lanczos5:
        rows.push_back(kernel_row(o, in, out, lanczos(5.0f), antialias));
        break;
    }
  return rows;
}

Tensor resize_images(const Tensor& images, int64_t height, int64_t width, Interpolation method,
                     bool antialias) {
  KILN_SHAPE_CHECK(images.rank() == 3 || images.rank() == 4,
                   "resize_images: expected images [batch, height, width, channels] or [height, "
                   "width, channels], got ",
                   images.shape());
  const Tensor batched = images.rank() == 3 ? expand_dims(images, 0) : images;
  const int64_t h = batched.dim(1), w = batched.dim(2), c = batched.dim(3);
  KILN_SHAPE_CHECK(h > 0 && w > 0 && c > 0,
                   "resize_images: the height, width and channels must be known and positive, "
                   "got ",
                   images.shape());
  KILN_CHECK(height > 0 && width > 0, "resize_images: the size must be positive, got ", height, "x",
             width);
  const Tensor x = is_floating(batched.dtype()) ? batched : cast(batched, DType::f32);
  Tensor y = x;
  // An axis kept at its size is sampled at its own pixel centers: the identity, in every method.
  if (height != h)
    y = reshape(matmul(resampling_matrix(h, height, method, antialias, x.dtype(), x.device()),
                       reshape(y, {-1, h, w * c})),
                {-1, height, w, c});
  if (width != w)
    y = reshape(matmul(resampling_matrix(w, width, method, antialias, x.dtype(), x.device()),
                       reshape(y, {-1, w, c})),
                {-1, height, width, c});
  return images.rank() == 3 ? squeeze(y, {0}) : y;
}

}  // namespace kiln::ops
