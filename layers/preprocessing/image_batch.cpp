#include "kiln/layers/preprocessing/image_batch.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/image_resampling.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::layers {

ImageBatch::ImageBatch(const Tensor& x, DType dtype, std::string_view layer)
    : unbatched_(x.rank() == 3) {
  KILN_SHAPE_CHECK(x.rank() == 3 || x.rank() == 4, layer,
                   ": expected images [batch, height, width, channels] or one image [height, "
                   "width, channels], got ",
                   x.shape());
  const Tensor cast = x.dtype() == dtype ? x : ops::cast(x, dtype);
  images_ = unbatched_ ? ops::expand_dims(cast, 0) : cast;
}

Tensor ImageBatch::restore(const Tensor& y) const {
  return unbatched_ ? ops::squeeze(y, {0}) : y;
}

Tensor crop_to_aspect_ratio(const Tensor& images, int64_t height, int64_t width) {
  const int64_t h = images.dim(1), w = images.dim(2);
  KILN_SHAPE_CHECK(h > 0 && w > 0, "cropping to an aspect ratio needs a known height and width, ",
                   "got images ", images.shape());
  const ops::ImageWindow crop = ops::aspect_ratio_window(h, w, height, width);
  if (crop.height == h && crop.width == w) return images;
  return ops::slice(images, {0, crop.top, crop.left, 0}, {-1, crop.height, crop.width, -1});
}

Tensor smart_resize(const Tensor& images, int64_t height, int64_t width) {
  return ops::resize_images(crop_to_aspect_ratio(images, height, width), height, width,
                            ops::Interpolation::bilinear);
}

Tensor uniform_per_image(const Tensor& images, const Tensor& seed, double low, double high) {
  // The first pixel of each image: a [batch, 1, 1, 1] template whose batch size is read when
  // the step runs.
  const Tensor like = ops::slice(images, {0, 0, 0, 0}, {-1, 1, 1, 1});
  return ops::random_uniform_like(like, seed, images.dtype()) * (high - low) + low;
}

std::pair<double, double> read_factor(const Config& factor, std::pair<double, double> bounds,
                                      std::string_view layer) {
  double lower = 0, upper = 0;
  if (factor.is_list()) {
    const std::vector<double> pair = factor.as_double_list();
    KILN_CHECK(pair.size() == 2, factor.where(), layer,
               ": factor must be a number or a pair [lower, upper], got ", factor.to_json());
    lower = std::min(pair[0], pair[1]);
    upper = std::max(pair[0], pair[1]);
    KILN_CHECK(lower <= bounds.second && upper >= bounds.first, factor.where(), layer, ": factor ",
               factor.to_json(), " lies outside [", bounds.first, ", ", bounds.second, "]");
  } else {
    const double f = factor.as_double();
    KILN_CHECK(f >= bounds.first && f <= bounds.second, factor.where(), layer, ": factor ", f,
               " lies outside [", bounds.first, ", ", bounds.second, "]");
    upper = std::abs(f);
    lower = std::max(-upper, bounds.first);
  }
  return {lower, upper};
}

std::string seed_name_of(std::string_view class_name) {
  std::string name;
  for (const char c : class_name) {
    if (std::isupper(static_cast<unsigned char>(c)) != 0) {
      if (!name.empty()) name += '_';
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      name += c;
    }
  }
  return name + "_seed";
}

void check_value_range(std::vector<double>& value_range, std::string_view layer) {
  KILN_CHECK(value_range.size() == 2, layer, ": value_range must be [low, high], got ",
             value_range.size(), " values");
  std::sort(value_range.begin(), value_range.end());
}

}  // namespace kiln::layers
