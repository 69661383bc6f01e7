#include "kiln/datasets/image/resize_image.h"

#include <algorithm>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::datasets {
namespace {

using ops::ResampleRow;

// Along the width: in [rows, in_w, c] to out [rows, rows_of_width.size(), c].
void resample_width(const float* in, int64_t rows, int64_t in_w, int64_t c,
                    const std::vector<ResampleRow>& rows_of_width, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* line = in + r * in_w * c;
    for (const ResampleRow& row : rows_of_width) {
      const float* first = line + row.start * c;
      for (int64_t k = 0; k < c; ++k) {
        float value = 0;
        for (size_t t = 0; t < row.weights.size(); ++t)
          value += row.weights[t] * first[static_cast<int64_t>(t) * c + k];
        *out++ = value;
      }
    }
  }
}

// Along the height: in [in_h, line] to out [rows_of_height.size(), line].
void resample_height(const float* in, int64_t line, const std::vector<ResampleRow>& rows_of_height,
                     float* out) {
  for (const ResampleRow& row : rows_of_height) {
    std::fill_n(out, line, 0.0f);
    for (size_t t = 0; t < row.weights.size(); ++t) {
      const float* source = in + (row.start + static_cast<int64_t>(t)) * line;
      const float w = row.weights[t];
      for (int64_t i = 0; i < line; ++i) out[i] += w * source[i];
    }
    out += line;
  }
}

}  // namespace

Tensor resize_image(const Tensor& image, int64_t height, int64_t width, Interpolation method) {
  KILN_CHECK(image.rank() == 3, "resize_image: expected an image [height, width, channels], got ",
             describe(image.meta()));
  KILN_CHECK(height > 0 && width > 0, "resize_image: the size must be positive, got ", height, "x",
             width);
  KILN_CHECK(image.dim(0) > 0 && image.dim(1) > 0, "resize_image: the image is empty (",
             describe(image.meta()), ")");
  const Tensor in = ops::cast(image, DType::f32);
  const int64_t in_h = in.dim(0), in_w = in.dim(1), c = in.dim(2);
  // The same size samples every pixel at its own center: a copy, in every method.
  if (in_h == height && in_w == width) return in.dtype() == image.dtype() ? in.clone() : in;
  // Width first, then height: ResizeBicubic's order of summation.
  Tensor across = Tensor::empty({in_h, width, c}, DType::f32, Device::cpu());
  resample_width(in.data<float>(), in_h, in_w, c, ops::resample_rows(in_w, width, method),
                 across.data<float>());
  Tensor out = Tensor::empty({height, width, c}, DType::f32, Device::cpu());
  resample_height(across.data<float>(), width * c, ops::resample_rows(in_h, height, method),
                  out.data<float>());
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
