#pragma once
// Resizing images as Keras's Resizing layer and image_dataset_from_directory do (tf.image.resize
// without antialiasing): pixel centers at half-integer coordinates, each output pixel sampled at
// (o + 0.5) * in / out - 0.5 of the input, in float32.
#include <cstdint>
#include <string>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

enum class Interpolation { bilinear, nearest, bicubic };

// "bilinear", "nearest" or "bicubic" (Keys' cubic, a = -0.5); other names are refused naming
// these.
Interpolation interpolation(const std::string& name);

// image: [height, width, channels], uint8 or float32, on the CPU. Returns float32
// [height, width, channels].
Tensor resize_image(const Tensor& image, int64_t height, int64_t width, Interpolation method);

// The centered crop of image with the aspect ratio of height x width, as Keras crops before
// resizing (crop_to_aspect_ratio): image itself when nothing is cropped.
Tensor crop_to_aspect_ratio(const Tensor& image, int64_t height, int64_t width);

}  // namespace kiln::datasets
