#include "kiln/layers/preprocessing/affine_transform.h"

#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::layers {
namespace {

// C++'s static_cast<int64_t> of a float (toward zero), as a float again.
Tensor truncated(const Tensor& x) {
  return ops::cast(ops::cast(x, DType::i64), x.dtype());
}

Tensor floored(const Tensor& x) {
  const Tensor t = truncated(x);
  return t - ops::cast(ops::less(x, t), x.dtype());
}

// std::round: halves away from zero.
Tensor rounded(const Tensor& x) {
  return ops::sign(x) * floored(ops::abs(x) + 0.5);
}

Tensor scalar(double v, const Tensor& like) {
  return full({}, v, like.dtype(), like.device());
}

// TensorFlow's MapCoordinate: coordinate c along an axis of `length` pixels, in the image.
Tensor mapped(const Tensor& c, int64_t length, FillMode mode) {
  const auto len = static_cast<double>(length);
  if (mode == FillMode::constant) return c;
  if (mode == FillMode::nearest || length <= 1)
    return length <= 1 ? ops::zeros_like(c) : ops::clip(c, 0, len - 1);
  const Tensor below = ops::less(c, 0.0), above = ops::greater(c, len - 1);
  Tensor low, high;
  if (mode == FillMode::reflect) {
    const double twice = 2 * len;
    const Tensor a = truncated(-c / twice) * twice + c;
    low = ops::where(ops::less(a, -len), a + twice, -a - 1.0);
    const Tensor b = c - truncated(c / twice) * twice;
    high = ops::where(ops::greater_equal(b, scalar(len, b)), twice - b - 1.0, b);
  } else {  // wrap
    const double span = len - 1;
    low = c + (truncated(-c / span) + 1.0) * len;
    high = c - truncated(c / span) * len;
  }
  return ops::clip(ops::where(below, low, ops::where(above, high, c)), 0, len - 1);
}

// The images' pixels at integer coordinates (yy, xx) [batch, points], fill_value outside:
// [batch, points, channels]. flat is the images as [batch * height * width, channels].
Tensor read(const Tensor& flat, const Tensor& batch_offset, const Tensor& yy, const Tensor& xx,
            int64_t height, int64_t width, double fill_value) {
  const Tensor inside = ops::logical_and(
      ops::logical_and(ops::greater_equal(yy, scalar(0, yy)), ops::less(yy, double(height))),
      ops::logical_and(ops::greater_equal(xx, scalar(0, xx)), ops::less(xx, double(width))));
  const Tensor y = ops::clip(yy, 0, static_cast<double>(height - 1));
  const Tensor x = ops::clip(xx, 0, static_cast<double>(width - 1));
  const Tensor index = ops::cast(y * static_cast<double>(width) + x, DType::i64) + batch_offset;
  const Tensor values = ops::gather(flat, index, 0);
  return ops::where(ops::expand_dims(inside, -1), values, scalar(fill_value, values));
}

}  // namespace

FillMode parse_fill_mode(std::string_view name, std::string_view layer) {
  if (name == "reflect") return FillMode::reflect;
  if (name == "wrap") return FillMode::wrap;
  if (name == "constant") return FillMode::constant;
  if (name == "nearest") return FillMode::nearest;
  throw Error(detail::concat(layer, ": unknown fill_mode '", name,
                             "' (reflect, wrap, constant or nearest)"));
}

bool parse_affine_interpolation(std::string_view name, std::string_view layer) {
  KILN_CHECK(name == "bilinear" || name == "nearest", layer, ": unknown interpolation '", name,
             "' (bilinear or nearest)");
  return name == "bilinear";
}

Tensor affine_transform(const Tensor& images, const Tensor& transforms, bool bilinear,
                        FillMode fill_mode, double fill_value) {
  const int64_t height = images.dim(1), width = images.dim(2), channels = images.dim(3);
  KILN_SHAPE_CHECK(height > 0 && width > 0 && channels > 0,
                   "affine_transform: the height, width and channels must be known, got ",
                   images.shape());
  // The output pixels' integer coordinates, [1, height * width].
  std::vector<float> xs, ys;
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x) {
      xs.push_back(static_cast<float>(x));
      ys.push_back(static_cast<float>(y));
    }
  const Shape points{1, height * width};
  const Tensor ox = from_vector(xs, points, DType::f32, images.device());
  const Tensor oy = from_vector(ys, points, DType::f32, images.device());
  const std::vector<Tensor> t = ops::split(ops::cast(transforms, DType::f32), 6, 1);
  const Tensor x = mapped(t[0] * ox + t[1] * oy + t[2], width, fill_mode);
  const Tensor y = mapped(t[3] * ox + t[4] * oy + t[5], height, fill_mode);

  const Tensor flat = ops::reshape(images, {-1, channels});
  const Tensor batch_offset =
      ops::expand_dims(ops::range_like(images, 0), 1) * (height * width);  // [batch, 1]
  const auto at = [&](const Tensor& yy, const Tensor& xx) {
    return read(flat, batch_offset, yy, xx, height, width, fill_value);
  };
  Tensor out;
  if (bilinear) {
    const Tensor x0 = floored(x), y0 = floored(y), x1 = x0 + 1.0, y1 = y0 + 1.0;
    const auto weight = [&](const Tensor& w) {
      return ops::expand_dims(ops::cast(w, images.dtype()), -1);
    };
    const Tensor top = weight(x1 - x) * at(y0, x0) + weight(x - x0) * at(y0, x1);
    const Tensor bottom = weight(x1 - x) * at(y1, x0) + weight(x - x0) * at(y1, x1);
    out = weight(y1 - y) * top + weight(y - y0) * bottom;
  } else {
    out = at(rounded(y), rounded(x));
  }
  return ops::reshape(out, {-1, height, width, channels});
}

}  // namespace kiln::layers
