#include "kiln/datasets/image/resize_image.h"

#include <algorithm>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::datasets {
namespace {

// resample_rows with one tap count for every row (the largest; shorter rows padded with zero
// weights inside the image), so the loops below run a fixed number of taps.
struct Taps {
  int64_t count = 0;
  std::vector<int64_t> start;  // per output index
  std::vector<float> weights;  // [output index][count]
};

Taps taps_of(int64_t in, int64_t out, Interpolation method) {
  const std::vector<ops::ResampleRow> rows = ops::resample_rows(in, out, method);
  Taps t;
  for (const ops::ResampleRow& row : rows)
    t.count = std::max<int64_t>(t.count, static_cast<int64_t>(row.weights.size()));
  t.weights.assign(static_cast<size_t>(out * t.count), 0.0f);
  for (size_t o = 0; o < rows.size(); ++o) {
    // Padding goes after the taps, or before them where the row ends at the image's edge.
    const int64_t start = std::min(rows[o].start, in - t.count);
    t.start.push_back(start);
    for (size_t k = 0; k < rows[o].weights.size(); ++k)
      t.weights[o * static_cast<size_t>(t.count) + static_cast<size_t>(rows[o].start - start) + k] =
          rows[o].weights[k];
  }
  return t;
}

// Along the width: in [rows, in_w, C] (uint8 or float) to out [rows, taps.start.size(), C].
// The taps of the axis resampled last on this thread, reused while the sizes repeat (a folder
// of photos from one camera).
const Taps& cached_taps(int64_t in, int64_t out, Interpolation method, int axis) {
  struct Entry {
    int64_t in = -1, out = -1;
    Interpolation method = Interpolation::bilinear;
    Taps taps;
  };
  thread_local Entry entries[2];
  Entry& e = entries[axis];
  if (e.in != in || e.out != out || e.method != method)
    e = {in, out, method, taps_of(in, out, method)};
  return e.taps;
}

// K taps (0: taps.count) over C channels (0: c), fixed where they are small so the loops unroll.
template <int K, int C, typename In>
void resample_width(const In* in, int64_t rows, int64_t in_w, int64_t c_given, const Taps& taps,
                    float* out) {
  const int64_t count = K > 0 ? K : taps.count;
  const int64_t c = C > 0 ? C : c_given;
  const auto out_w = static_cast<int64_t>(taps.start.size());
  for (int64_t r = 0; r < rows; ++r) {
    const In* line = in + r * in_w * c;
    for (int64_t x = 0; x < out_w; ++x) {
      const In* first = line + taps.start[static_cast<size_t>(x)] * c;
      const float* w = taps.weights.data() + x * count;
      for (int64_t k = 0; k < c; ++k) {
        float value = 0;
        for (int64_t t = 0; t < count; ++t) value += w[t] * static_cast<float>(first[t * c + k]);
        *out++ = value;
      }
    }
  }
}

// Along the height: in [in_h, line] to out [taps.start.size(), line].
void resample_height(const float* in, int64_t line, const Taps& taps, float* out) {
  for (size_t o = 0; o < taps.start.size(); ++o) {
    const float* w = taps.weights.data() + o * static_cast<size_t>(taps.count);
    const float* source = in + taps.start[o] * line;
    std::fill_n(out, line, 0.0f);
    for (int64_t t = 0; t < taps.count; ++t, source += line)
      for (int64_t i = 0; i < line; ++i) out[i] += w[t] * source[i];
    out += line;
  }
}

template <int C, typename In>
void resample_width_channels(const In* in, int64_t rows, int64_t in_w, int64_t c, const Taps& taps,
                             float* out) {
  switch (taps.count) {
    case 1:
      return resample_width<1, C>(in, rows, in_w, c, taps, out);
    case 2:
      return resample_width<2, C>(in, rows, in_w, c, taps, out);
    case 4:
      return resample_width<4, C>(in, rows, in_w, c, taps, out);
    default:
      return resample_width<0, C>(in, rows, in_w, c, taps, out);
  }
}

template <typename In>
void resample_width_of(const In* in, int64_t rows, int64_t in_w, int64_t c, const Taps& taps,
                       float* out) {
  switch (c) {
    case 1:
      return resample_width_channels<1>(in, rows, in_w, c, taps, out);
    case 3:
      return resample_width_channels<3>(in, rows, in_w, c, taps, out);
    default:
      return resample_width_channels<0>(in, rows, in_w, c, taps, out);
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
  const int64_t in_h = image.dim(0), in_w = image.dim(1), c = image.dim(2);
  // The same size samples every pixel at its own center: a copy, in every method.
  if (in_h == height && in_w == width) return ops::cast(image, DType::f32).clone();
  // Width first, then height: ResizeBicubic's order of summation. uint8 pixels are read as they
  // are, without a float copy of the image.
  Tensor across = Tensor::empty({in_h, width, c}, DType::f32, Device::cpu());
  const Taps& along_width = cached_taps(in_w, width, method, 0);
  if (image.dtype() == DType::u8) {
    resample_width_of(image.data<uint8_t>(), in_h, in_w, c, along_width, across.data<float>());
  } else {
    resample_width_of(ops::cast(image, DType::f32).data<float>(), in_h, in_w, c, along_width,
                      across.data<float>());
  }
  Tensor out = Tensor::empty({height, width, c}, DType::f32, Device::cpu());
  resample_height(across.data<float>(), width * c, cached_taps(in_h, height, method, 1),
                  out.data<float>());
  return out;
}

Tensor crop_to_aspect_ratio(const Tensor& image, int64_t height, int64_t width) {
  const ops::ImageWindow crop = ops::aspect_ratio_window(image.dim(0), image.dim(1), height, width);
  if (crop.height == image.dim(0) && crop.width == image.dim(1)) return image;
  return ops::slice(image, {crop.top, crop.left, 0}, {crop.height, crop.width, -1});
}

}  // namespace kiln::datasets
