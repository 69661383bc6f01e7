// libFuzzer target: any bytes as an image file, through every decoder kiln has (the format comes
// from the bytes: JPEG, PNG, GIF, WebP) to each channel count, then resized. Decoding may fail
// with kiln::Error naming the file, never crash, hang, leak or read past the bytes; an image that
// decodes has the channels asked for and a size within the decoders' bound.
#include <cstdint>
#include <span>

#include "kiln/datasets/image/decode_image.h"
#include "kiln/datasets/image/resize_image.h"
#include "kiln/framework/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  for (const int channels : {1, 3, 4}) {
    try {
      const kiln::Tensor image = kiln::datasets::decode_image(bytes, channels, "fuzz");
      if (image.rank() != 3 || image.dim(2) != channels) __builtin_trap();
      if (image.dim(0) > 0 && image.dim(1) > 0 && image.numel() < (int64_t{1} << 20))
        (void)kiln::datasets::resize_image(image, 3, 5, kiln::datasets::Interpolation::bilinear);
    } catch (const kiln::Error&) {
    }
  }
  return 0;
}
