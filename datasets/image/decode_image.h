#pragma once
// Image files as pixels, with the library made for each format: JPEG (libjpeg-turbo), PNG
// (libpng), GIF (giflib, the first frame), WebP (libwebp) and BMP (stb_image). The format comes
// from the bytes, not the file's name. A file that is no image of these, or a damaged one, is an
// error naming `where` (the file) and what the decoder said; decoders never read past the bytes
// given.
#include <cstdint>
#include <span>
#include <string>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

enum class ImageFormat { jpeg, png, gif, webp, bmp, unknown };

// What the first bytes say the image is.
ImageFormat sniff_image_format(std::span<const uint8_t> bytes);

// uint8 [height, width, channels] on the CPU. channels: 1 (grayscale), 3 (RGB) or 4 (RGBA),
// converted as TensorFlow's decoders do, so pixels match Keras's pipelines: JPEG's grayscale is
// libjpeg's, with TensorFlow's fast integer DCT; otherwise gray to RGB repeats the value, RGB
// to gray weighs 0.2989, 0.5870, 0.1140, alpha is dropped (not composited) and missing alpha is
// opaque.
Tensor decode_image(std::span<const uint8_t> bytes, int channels, const std::string& where);

// The whole file read and decoded.
Tensor read_image(const std::string& path, int channels);

}  // namespace kiln::datasets
