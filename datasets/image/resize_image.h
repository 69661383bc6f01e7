#pragma once
// Resizing one image as image_dataset_from_directory does (tf.image.resize without
// antialiasing, the weights of ops::resample_rows), in float32 loops over the pixels: a decoded
// photo is resized on a pipeline worker, where a matmul over its whole rows would cost far more
// than the two or four taps each output pixel reads.
#include <cstdint>

#include "kiln/framework/ops/image_resampling.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

using ops::Interpolation;

// image: [height, width, channels], uint8 or float32, on the CPU. Returns float32
// [height, width, channels].
Tensor resize_image(const Tensor& image, int64_t height, int64_t width, Interpolation method);

// The centered crop of image with the aspect ratio of height x width, as Keras crops before
// resizing (crop_to_aspect_ratio): image itself when nothing is cropped.
Tensor crop_to_aspect_ratio(const Tensor& image, int64_t height, int64_t width);

}  // namespace kiln::datasets
