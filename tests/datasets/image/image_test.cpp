// Image decoding and resizing against TensorFlow (scripts/golden/generate_image_goldens.py):
// every format and channel count TensorFlow decodes gives its pixels, resizing gives
// tf.image.resize's values, and crop_to_aspect_ratio Keras's; damaged or foreign files are
// refused naming the file.
#include <gmock/gmock.h>

#include <fstream>
#include <string>
#include <vector>

#include "kiln/datasets/image/decode_image.h"
#include "kiln/datasets/image/resize_image.h"
#include "kiln/framework/core/error.h"
#include "tests/datasets/image/image_goldens.h"
#include "tests/test_support/expect_error.h"

namespace kiln::datasets {
namespace {

using kiln::testing::error_of;
using ::testing::HasSubstr;

using namespace goldens;

std::string fixture(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/datasets/image/data/" + name;
}

TEST(DecodeImage, GivesTensorFlowsPixels) {
  ASSERT_GE(kDecodeGoldens.size(), 15u);
  for (const DecodeGolden& g : kDecodeGoldens) {
    SCOPED_TRACE(g.file + " as " + std::to_string(g.channels) + " channel(s)");
    const Tensor image = read_image(fixture(g.file), g.channels);
    ASSERT_EQ(image.shape(), Shape({g.height, g.width, g.channels}));
    ASSERT_EQ(image.dtype(), DType::u8);
    const std::vector<uint8_t> got = image.to_vector<uint8_t>();
    // PNG's and WebP's pixels are exact; JPEG's color conversions round alike; the grayscale
    // conversions of RGB sources may differ by one level.
    int worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::abs(static_cast<int>(got[i]) - g.pixels[i]));
    EXPECT_LE(worst, g.channels == 1 ? 1 : 0);
  }
}

TEST(DecodeImage, TheFormatComesFromTheBytes) {
  std::ifstream in(fixture("rgb.png"), std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  EXPECT_EQ(sniff_image_format(bytes), ImageFormat::png);
  EXPECT_EQ(decode_image(bytes, 3, "renamed.jpg").shape(), Shape({5, 6, 3}));
}

TEST(DecodeImage, DamagedOrForeignFilesAreRefusedNamingTheFile) {
  EXPECT_THAT(error_of([] { (void)read_image(fixture("not_an_image.jpg"), 3); }),
              HasSubstr("not_an_image.jpg: not an image kiln reads (JPEG, PNG, GIF, WebP or BMP)"));
  EXPECT_THAT(error_of([] { (void)read_image(fixture("truncated.jpg"), 3); }),
              HasSubstr("truncated.jpg: bad JPEG: "));
  std::ifstream in(fixture("rgb.png"), std::ios::binary);
  std::vector<uint8_t> png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  png.resize(png.size() - 20);
  EXPECT_THAT(error_of([&] { (void)decode_image(png, 3, "cut.png"); }),
              HasSubstr("cut.png: bad PNG: "));
  std::ifstream bmp_in(fixture("rgb.bmp"), std::ios::binary);
  std::vector<uint8_t> bmp((std::istreambuf_iterator<char>(bmp_in)),
                           std::istreambuf_iterator<char>());
  bmp.resize(40);  // the headers' start: no pixels
  EXPECT_THAT(error_of([&] { (void)decode_image(bmp, 3, "cut.bmp"); }),
              HasSubstr("cut.bmp: bad BMP: "));
  // 62 bytes claiming 99 x 2293765 pixels (a fuzzer's find): refused before stb_image reads
  // 900 MB of missing rows as zeros, now by the pixel bound.
  const std::vector<uint8_t> tall{
      0x42, 0x4d, 0xae, 0x0,  0x0,  0x0,  0x0,  0x0,  0x0,  0x8,  0x36, 0x0,  0x0,  0x0, 0x28, 0x0,
      0x0,  0x0,  0x63, 0x0,  0x0,  0x0,  0x5,  0x0,  0x23, 0x0,  0x1,  0x0,  0x20, 0x0, 0x0,  0x0,
      0x0,  0x0,  0x78, 0xff, 0x45, 0x20, 0xfb, 0x6a, 0x0,  0x0,  0x0,  0x0,  0x0,  0x0, 0xd9, 0xb4,
      0x8f, 0xfe, 0x21, 0x48, 0x23, 0x92, 0xa5, 0x80, 0x5b, 0xca, 0x38, 0x14, 0xef, 0x5e};
  EXPECT_THAT(error_of([&] { (void)decode_image(tall, 3, "tall.bmp"); }),
              HasSubstr("tall.bmp: the image claims 99x2293765 pixels, more than kiln decodes"));
  // The same header claiming 99 x 2000 pixels, within bounds: its missing rows are refused.
  std::vector<uint8_t> shorter = tall;
  shorter[22] = 0xd0;
  shorter[23] = 0x07;
  shorter[24] = 0x00;
  EXPECT_THAT(error_of([&] { (void)decode_image(shorter, 3, "tall.bmp"); }),
              HasSubstr("tall.bmp: bad BMP: truncated, its 99x2000 pixels need"));
  // 286 bytes of GIF whose canvas claims 65286 x 2558 pixels for a 7 x 9 frame (a fuzzer's
  // find): refused rather than filled, 500 MB at a time for each channel count asked.
  const std::vector<uint8_t> canvas{
      0x47, 0x49, 0x46, 0x38, 0x37, 0x61, 0x06, 0xff, 0xfe, 0x09, 0x84, 0x00, 0x00, 0xd6, 0xfb,
      0x20, 0xd0, 0xf5, 0x1a, 0xc8, 0xed, 0x12, 0xbe, 0xe3, 0x08, 0xb7, 0xdc, 0x00, 0xaf, 0xd4,
      0xf9, 0xa7, 0xcc, 0xf1, 0xa3, 0xc8, 0xed, 0x99, 0xbe, 0xe3, 0x8d, 0xb2, 0xd7, 0x85, 0xaa,
      0x00, 0x00, 0x7f, 0xfe, 0xe5, 0xd8, 0x05, 0xf4, 0xcf, 0x81, 0xa6, 0xcb, 0x79, 0x9e, 0xc3,
      0x6e, 0x93, 0xb8, 0x63, 0x88, 0xad, 0x58, 0x22, 0x34, 0x00, 0x20, 0x81, 0x40, 0x06, 0x04,
      0x1d, 0x1a, 0x58, 0x80, 0x30, 0x00, 0x03, 0x02, 0x81, 0x04, 0x0d, 0x1a, 0x28, 0x5f, 0xe0,
      0x06, 0x43, 0x87, 0x10, 0x25, 0x5a, 0xa8, 0xe8, 0xb1, 0x03, 0x83, 0x8d, 0x03, 0x0e, 0x72,
      0x50, 0x31, 0x10, 0x00, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x1e, 0x00, 0x2c, 0x00, 0x00,
      0x00, 0x00, 0x07, 0x00, 0x09, 0x00, 0x84, 0xd6, 0xfb, 0x20, 0xd0, 0xf5, 0x1a, 0xc8, 0xed,
      0x12, 0xbe, 0xe3, 0x08, 0xb7, 0xdc, 0x01, 0xaf, 0xd4, 0xf9, 0xa7, 0xcc, 0xf1, 0xa3, 0xc8,
      0xed, 0x99, 0xbe, 0xe3, 0x8d, 0xb2, 0xd7, 0x85, 0xaa, 0xcf, 0x81, 0xa6, 0xcb, 0x79, 0x9e,
      0xc3, 0x6e, 0x93, 0xb8, 0x63, 0x88, 0x00, 0x00, 0x7f, 0xfe, 0xe5, 0xd8, 0x05, 0xf4, 0x1d,
      0x42, 0x46, 0x6b, 0x90, 0x3f, 0x64, 0x89, 0xee, 0x13, 0x39, 0xe9, 0x0e, 0x33, 0xe0, 0x05,
      0x2a, 0x35, 0x7a, 0x7f, 0x2c, 0x51, 0x76, 0x23, 0x48, 0x6d, 0x1d, 0x42, 0x67, 0x13, 0x38,
      0x5d, 0x0d, 0x32, 0x57, 0x07, 0x2c, 0x51, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x3b,
      0x00, 0x21, 0x0c, 0xb8, 0x70, 0x80, 0xc3, 0x02, 0x0a, 0x12, 0x08, 0x60, 0x40, 0xd0, 0x81,
      0x81, 0x85, 0x09, 0x05, 0x34, 0x24, 0x88, 0xd0, 0xc0, 0xc2, 0x05, 0x03, 0x1b, 0x14, 0x44,
      0x70, 0x10, 0xc0, 0x83, 0xc7, 0x8f, 0x1e, 0x32, 0x30, 0xac, 0x28, 0x50, 0x22, 0x45, 0x00,
      0x09, 0x37, 0x1c, 0xe4, 0x08, 0x91, 0x03, 0x83, 0x0a, 0x0f, 0x04, 0x10, 0x0c, 0x08, 0x00,
      0x3b};
  EXPECT_THAT(error_of([&] { (void)decode_image(canvas, 3, "canvas.gif"); }),
              HasSubstr("canvas.gif: the image claims 65286x2558 pixels, more than kiln decodes"));
  EXPECT_THAT(error_of([] { (void)read_image(fixture("rgb.png"), 2); }),
              HasSubstr("images decode to 1, 3 or 4 channels, not 2"));
  EXPECT_THAT(error_of([] { (void)read_image(fixture("missing.png"), 3); }),
              HasSubstr("cannot open image file"));
}

TEST(ResizeImage, GivesTensorFlowsValues) {
  ASSERT_EQ(kResizeGoldens.size(), 60u);
  std::vector<float> pattern(5 * 7 * 2);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<float>((i * 37 + 11) % 256);
  const Tensor image = from_vector(pattern, {5, 7, 2}, DType::f32);
  for (const ResizeGolden& g : kResizeGoldens) {
    SCOPED_TRACE(g.method + " to " + std::to_string(g.height) + "x" + std::to_string(g.width) +
                 (g.crop ? " cropped" : ""));
    const Tensor source = g.crop ? crop_to_aspect_ratio(image, g.height, g.width) : image;
    const Tensor out = resize_image(source, g.height, g.width, ops::parse_interpolation(g.method));
    ASSERT_EQ(out.shape(), Shape({g.height, g.width, 2}));
    const std::vector<float> got = out.to_vector<float>();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], g.values[i], 1e-4) << i;
  }
}

TEST(ResizeImage, UnknownInterpolationsAndEmptySizesAreRefused) {
  EXPECT_THAT(error_of([] { (void)ops::parse_interpolation("lanczos7"); }),
              HasSubstr("unknown interpolation 'lanczos7' (bilinear, nearest, bicubic, area, "
                        "lanczos3 or lanczos5)"));
  const Tensor image = zeros({4, 4, 3}, DType::u8, Device::cpu());
  EXPECT_THAT(error_of([&] { (void)resize_image(image, 0, 3, Interpolation::bilinear); }),
              HasSubstr("the size must be positive"));
  EXPECT_EQ(resize_image(image, 2, 3, Interpolation::nearest).dtype(), DType::f32);
}

}  // namespace
}  // namespace kiln::datasets
