#pragma once
// Resizing images with tf.image.resize's arithmetic (what Keras's Resizing layer and
// image_dataset_from_directory compute): each axis is resampled on its own, every output pixel a
// weighted sum of a run of input pixels along that axis. The weights per method:
// - bilinear, nearest, bicubic: half-pixel centers, as TensorFlow's ResizeBilinear,
//   ResizeNearestNeighbor and ResizeBicubic (Keys' cubic, a = -0.5, read from a 1/1024-step
//   table; taps outside the image weightless and the rest renormalized);
// - area: ResizeArea's box filter, each input pixel weighted by the part of it the output pixel
//   covers;
// - lanczos3, lanczos5, and bilinear or bicubic with antialias: ScaleAndTranslate's kernels,
//   widened by the downscaling factor when antialiasing so that they low-pass filter.
#include <cstdint>
#include <string_view>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::ops {

enum class Interpolation { bilinear, nearest, bicubic, area, lanczos3, lanczos5 };

// Keras's names; others are refused naming the known ones.
Interpolation parse_interpolation(std::string_view name);
std::string_view interpolation_name(Interpolation method);

// Output index o of an axis is the sum of weights[k] * input[start + k].
struct ResampleRow {
  int64_t start = 0;
  std::vector<float> weights;
};

// One row per output index, resampling an axis of `in` pixels to `out`. antialias matters only
// when downscaling with bilinear, bicubic or lanczos (TensorFlow ignores it for nearest and
// area).
std::vector<ResampleRow> resample_rows(int64_t in, int64_t out, Interpolation method,
                                       bool antialias = false);

// Keras's crop to an aspect ratio (crop_to_aspect_ratio, smart_resize): the largest centered
// window of an h x w image with the aspect ratio of height:width, at least a pixel each way,
// with Keras's arithmetic (the sides through doubles, the margins halved and rounded down).
struct ImageWindow {
  int64_t top = 0, left = 0, height = 0, width = 0;
};
ImageWindow aspect_ratio_window(int64_t h, int64_t w, int64_t height, int64_t width);

// images: [batch, height, width, channels] or [height, width, channels], height and width known
// (while tracing too). Integer images are resized as float32. Built from matmuls with the
// resampling matrices, so it traces, differentiates and runs on every device.
Tensor resize_images(const Tensor& images, int64_t height, int64_t width, Interpolation method,
                     bool antialias = false);

}  // namespace kiln::ops
