#include "kiln/datasets/image/decode_image.h"

// clang-format off: jpeglib.h needs stdio.h before it
#include <jpeglib.h>
#include <cstdio>
// clang-format on
#include <gif_lib.h>
#include <png.h>
#include <stb_image.h>
#include <webp/decode.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <vector>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

// 8192 x 8192, far beyond any training image; a header that claims more is refused, not
// allocated (a GIF's canvas may be much larger than its frames: a few bytes can claim it).
constexpr int64_t kMaxPixels = int64_t{1} << 26;

Tensor pixels(int64_t height, int64_t width, int channels) {
  return Tensor::empty({height, width, channels}, DType::u8, Device::cpu());
}

void check_size(int64_t height, int64_t width, const std::string& where) {
  KILN_CHECK(height * width <= kMaxPixels, where, ": the image claims ", width, "x", height,
             " pixels, more than kiln decodes (", kMaxPixels, ")");
}

// image's channels (1 gray, 2 gray and alpha, 3 RGB, 4 RGBA) as `channels` (1, 3 or 4), as
// TensorFlow converts: alpha is dropped, not composited.
Tensor with_channels(const Tensor& image, int channels) {
  const int from = static_cast<int>(image.dim(2));
  if (from == channels) return image;
  const int64_t n = image.dim(0) * image.dim(1);
  Tensor out = pixels(image.dim(0), image.dim(1), channels);
  const uint8_t* in = image.data<uint8_t>();
  uint8_t* o = out.data<uint8_t>();
  for (int64_t p = 0; p < n; ++p, in += from, o += channels) {
    if (from <= 2) {  // gray, or gray and alpha
      std::fill(o, o + std::min(channels, 3), in[0]);
    } else if (channels == 1) {
      const double gray = 0.2989 * in[0] + 0.5870 * in[1] + 0.1140 * in[2];
      o[0] = static_cast<uint8_t>(std::clamp(std::lround(gray), 0L, 255L));
    } else {
      std::copy(in, in + 3, o);
    }
    if (channels == 4) o[3] = from == 4 ? in[3] : from == 2 ? in[1] : 255;
  }
  return out;
}

// libjpeg reports errors through a callback that must not return: it jumps back to the
// decode's setjmp, with the message kept. Warnings (a truncated file, corrupt data that libjpeg
// would patch over) are errors too, as TensorFlow's decoder makes them.
struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpeg_fail(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

void jpeg_message(j_common_ptr info, int level) {
  if (level < 0) jpeg_fail(info);  // a warning
}

J_COLOR_SPACE jpeg_space(int channels) {
  return channels == 1 ? JCS_GRAYSCALE : channels == 3 ? JCS_RGB : JCS_EXT_RGBA;
}

// The steps between setjmp and a jump hold no C++ objects with destructors: each step is its
// own function over plain structs, and the pixels go into a buffer allocated between them.
bool jpeg_start(jpeg_decompress_struct& info, JpegErrors& errors, std::span<const uint8_t> bytes,
                int channels) {
  if (setjmp(errors.jump)) return false;
  jpeg_mem_src(&info, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&info, TRUE);
  info.out_color_space = jpeg_space(channels);
  info.dct_method = JDCT_IFAST;  // TensorFlow's default, so pixels match Keras's pipelines
  jpeg_start_decompress(&info);
  return true;
}

bool jpeg_rows(jpeg_decompress_struct& info, JpegErrors& errors, uint8_t* out) {
  if (setjmp(errors.jump)) return false;
  const size_t row_bytes = static_cast<size_t>(info.output_width) * info.output_components;
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = out + info.output_scanline * row_bytes;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  return true;
}

Tensor decode_jpeg(std::span<const uint8_t> bytes, int channels, const std::string& where) {
  jpeg_decompress_struct info{};
  JpegErrors errors{};
  info.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_fail;
  errors.manager.emit_message = jpeg_message;
  jpeg_create_decompress(&info);
  struct Destroy {
    jpeg_decompress_struct* info;
    ~Destroy() { jpeg_destroy_decompress(info); }
  } destroy{&info};
  KILN_CHECK(jpeg_start(info, errors, bytes, channels), where, ": bad JPEG: ", errors.message);
  check_size(info.output_height, info.output_width, where);
  Tensor out = pixels(info.output_height, info.output_width, info.output_components);
  KILN_CHECK(jpeg_rows(info, errors, out.data<uint8_t>()), where, ": bad JPEG: ", errors.message);
  return with_channels(out, channels);
}

Tensor decode_png(std::span<const uint8_t> bytes, int channels, const std::string& where) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  KILN_CHECK(png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()), where,
             ": bad PNG: ", image.message);
  if (int64_t{image.height} * image.width > kMaxPixels) png_image_free(&image);
  check_size(image.height, image.width, where);
  // The file's own channels, 8 bits each (a palette expanded), converted afterwards as
  // TensorFlow converts: libpng's own conversions go through linear light and composite alpha.
  const bool color = (image.format & PNG_FORMAT_FLAG_COLOR) != 0;
  const bool alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  image.format = color ? (alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB)
                       : (alpha ? PNG_FORMAT_GA : PNG_FORMAT_GRAY);
  Tensor out =
      pixels(image.height, image.width, static_cast<int>(PNG_IMAGE_PIXEL_CHANNELS(image.format)));
  // On failure libpng frees the image itself.
  KILN_CHECK(png_image_finish_read(&image, nullptr, out.data<uint8_t>(), 0, nullptr), where,
             ": bad PNG: ", image.message);
  return with_channels(out, channels);
}

Tensor decode_webp(std::span<const uint8_t> bytes, int channels, const std::string& where) {
  int width = 0, height = 0;
  KILN_CHECK(WebPGetInfo(bytes.data(), bytes.size(), &width, &height), where,
             ": bad WebP: its header does not parse");
  check_size(height, width, where);
  const int decoded = channels == 4 ? 4 : 3;
  Tensor out = pixels(height, width, decoded);
  const size_t size = static_cast<size_t>(width) * static_cast<size_t>(height) * decoded;
  const int stride = width * decoded;
  uint8_t* done =
      decoded == 4
          ? WebPDecodeRGBAInto(bytes.data(), bytes.size(), out.data<uint8_t>(), size, stride)
          : WebPDecodeRGBInto(bytes.data(), bytes.size(), out.data<uint8_t>(), size, stride);
  KILN_CHECK(done != nullptr, where, ": bad WebP: its image data does not decode");
  return with_channels(out, channels);
}

// giflib reads through a callback: this one hands out the bytes in turn.
struct GifBytes {
  std::span<const uint8_t> bytes;
  size_t read = 0;
};

int gif_read(GifFileType* gif, GifByteType* out, int wanted) {
  auto* source = static_cast<GifBytes*>(gif->UserData);
  const size_t n = std::min(static_cast<size_t>(wanted), source->bytes.size() - source->read);
  std::memcpy(out, source->bytes.data() + source->read, n);
  source->read += n;
  return static_cast<int>(n);
}

// The rows of an interlaced image, in the order its raster stores them.
std::vector<int> gif_row_order(int height, bool interlaced) {
  std::vector<int> rows;
  if (!interlaced) {
    for (int y = 0; y < height; ++y) rows.push_back(y);
    return rows;
  }
  for (const auto& [start, step] : {std::pair{0, 8}, {4, 8}, {2, 4}, {1, 2}})
    for (int y = start; y < height; y += step) rows.push_back(y);
  return rows;
}

// The first frame on the full canvas, RGB; cells the frame does not cover, and its transparent
// ones, are black (TensorFlow's first frame).
Tensor decode_gif(std::span<const uint8_t> bytes, int channels, const std::string& where) {
  GifBytes source{bytes};
  int error = 0;
  GifFileType* gif = DGifOpen(&source, gif_read, &error);
  KILN_CHECK(gif != nullptr, where, ": bad GIF: ", GifErrorString(error));
  struct Close {
    GifFileType* gif;
    ~Close() { DGifCloseFile(gif, nullptr); }
  } close{gif};
  KILN_CHECK(DGifSlurp(gif) == GIF_OK, where, ": bad GIF: ", GifErrorString(gif->Error));
  KILN_CHECK(gif->ImageCount > 0, where, ": bad GIF: no image in the file");
  const SavedImage& frame = gif->SavedImages[0];
  const GifImageDesc& d = frame.ImageDesc;
  const ColorMapObject* colors = d.ColorMap != nullptr ? d.ColorMap : gif->SColorMap;
  KILN_CHECK(colors != nullptr, where, ": bad GIF: no color table");
  KILN_CHECK(d.Left >= 0 && d.Top >= 0 && d.Left + d.Width <= gif->SWidth &&
                 d.Top + d.Height <= gif->SHeight,
             where, ": bad GIF: the first frame lies outside the canvas");
  check_size(gif->SHeight, gif->SWidth, where);
  GraphicsControlBlock control{};
  control.TransparentColor = NO_TRANSPARENT_COLOR;
  DGifSavedExtensionToGCB(gif, 0, &control);
  Tensor out = zeros({gif->SHeight, gif->SWidth, 3}, DType::u8, Device::cpu());
  uint8_t* canvas = out.data<uint8_t>();
  const std::vector<int> rows = gif_row_order(d.Height, d.Interlace);
  for (int r = 0; r < d.Height; ++r)
    for (int x = 0; x < d.Width; ++x) {
      const int index = frame.RasterBits[static_cast<size_t>(r) * d.Width + x];
      if (index == control.TransparentColor) continue;
      KILN_CHECK(index < colors->ColorCount, where, ": bad GIF: color ", index,
                 " past its table of ", colors->ColorCount);
      const GifColorType& c = colors->Colors[index];
      uint8_t* p = canvas + (static_cast<size_t>(d.Top + rows[r]) * gif->SWidth + d.Left + x) * 3;
      p[0] = c.Red;
      p[1] = c.Green;
      p[2] = c.Blue;
    }
  return with_channels(out, channels);
}

// A little-endian field of `bytes` at `at` (inside: the caller checked the length).
uint32_t le_field(std::span<const uint8_t> bytes, size_t at, int width) {
  uint32_t v = 0;
  for (int k = width - 1; k >= 0; --k) v = (v << 8) | bytes[at + static_cast<size_t>(k)];
  return v;
}

// stb_image decodes uncompressed BMPs only, and reads past a file's end as zeros: a file must
// hold the pixel rows its header promises, or a tiny file claiming a huge image takes as long
// to "decode" as a real one. The rows start at the header's data offset, each padded to 4 bytes.
void check_bmp_rows_present(std::span<const uint8_t> bytes, int width, int height,
                            const std::string& where) {
  KILN_CHECK(bytes.size() >= 30, where, ": bad BMP: a header of ", bytes.size(), " bytes");
  const uint32_t info_size = le_field(bytes, 14, 4);
  const uint32_t bits = le_field(bytes, info_size == 12 ? 24 : 28, 2);
  const uint64_t stride = (static_cast<uint64_t>(width) * bits + 31) / 32 * 4;
  const uint64_t needed = le_field(bytes, 10, 4) + stride * static_cast<uint64_t>(height);
  KILN_CHECK(bytes.size() >= needed, where, ": bad BMP: truncated, its ", width, "x", height,
             " pixels need ", needed, " bytes and the file has ", bytes.size());
}

// stb_image's BMP reader (stb is the library Debian ships for it): the image's own channels,
// RGB or RGBA (palettes expanded), its size checked before anything is decoded.
Tensor decode_bmp(std::span<const uint8_t> bytes, int channels, const std::string& where) {
  KILN_CHECK(bytes.size() <= static_cast<size_t>(std::numeric_limits<int>::max()), where,
             ": a BMP file too large to read");
  const int length = static_cast<int>(bytes.size());
  int width = 0, height = 0, native = 0;
  KILN_CHECK(stbi_info_from_memory(bytes.data(), length, &width, &height, &native) == 1, where,
             ": bad BMP: ", stbi_failure_reason());
  check_size(height, width, where);
  check_bmp_rows_present(bytes, width, height, where);
  const int decoded = native == 4 || native == 2 ? 4 : 3;
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels_of(
      stbi_load_from_memory(bytes.data(), length, &width, &height, &native, decoded),
      stbi_image_free);
  KILN_CHECK(pixels_of != nullptr, where, ": bad BMP: ", stbi_failure_reason());
  Tensor out = pixels(height, width, decoded);
  std::memcpy(out.data<uint8_t>(), pixels_of.get(),
              static_cast<size_t>(width) * static_cast<size_t>(height) * decoded);
  return with_channels(out, channels);
}

}  // namespace

ImageFormat sniff_image_format(std::span<const uint8_t> bytes) {
  const auto starts = [&](std::string_view magic, size_t at = 0) {
    return bytes.size() >= at + magic.size() &&
           std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0;
  };
  if (starts("\xFF\xD8\xFF")) return ImageFormat::jpeg;
  if (starts("\x89PNG\r\n\x1A\n")) return ImageFormat::png;
  if (starts("GIF87a") || starts("GIF89a")) return ImageFormat::gif;
  if (starts("RIFF") && starts("WEBP", 8)) return ImageFormat::webp;
  if (starts("BM")) return ImageFormat::bmp;
  return ImageFormat::unknown;
}

Tensor decode_image(std::span<const uint8_t> bytes, int channels, const std::string& where) {
  KILN_CHECK(channels == 1 || channels == 3 || channels == 4, where, ": images decode to 1, 3 or ",
             "4 channels, not ", channels);
  switch (sniff_image_format(bytes)) {
    case ImageFormat::jpeg:
      return decode_jpeg(bytes, channels, where);
    case ImageFormat::png:
      return decode_png(bytes, channels, where);
    case ImageFormat::gif:
      return decode_gif(bytes, channels, where);
    case ImageFormat::webp:
      return decode_webp(bytes, channels, where);
    case ImageFormat::bmp:
      return decode_bmp(bytes, channels, where);
    case ImageFormat::unknown:
      break;
  }
  throw Error(detail::concat(where, ": not an image kiln reads (JPEG, PNG, GIF, WebP or BMP)"));
}

Tensor read_image(const std::string& path, int channels) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in.is_open(), "cannot open image file ", path);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  return decode_image(bytes, channels, path);
}

}  // namespace kiln::datasets
