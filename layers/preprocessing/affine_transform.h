#pragma once
// TensorFlow's ImageProjectiveTransformV3 for affine maps (what Keras's RandomRotation,
// RandomTranslation and RandomZoom call): output pixel (x, y), at integer coordinates, samples
// the input at (a0 x + a1 y + a2, b0 x + b1 y + b2); a point outside the image is first mapped
// back in by the fill mode (reflect: dcba|abcd|dcba, wrap: abcd|abcd|abcd, nearest: the edge;
// constant: left where it is), then read bilinearly (or at the nearest pixel), neighbours outside
// the image counting as fill_value (so a constant fill blends into the image's edge, as
// TensorFlow's does). Built from elementwise ops and one gather
// per neighbour, so it traces, runs on every device, and differentiates with respect to the
// images.
#include <string_view>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::layers {

enum class FillMode { reflect, wrap, constant, nearest };

// Keras's names; others are refused naming the known ones and `layer`.
FillMode parse_fill_mode(std::string_view name, std::string_view layer);
// "bilinear" (true) or "nearest" (false).
bool parse_affine_interpolation(std::string_view name, std::string_view layer);

// images: [batch, height, width, channels], height and width known; transforms: [batch, 6]
// (a0, a1, a2, b0, b1, b2), float32.
Tensor affine_transform(const Tensor& images, const Tensor& transforms, bool bilinear,
                        FillMode fill_mode, double fill_value);

}  // namespace kiln::layers
