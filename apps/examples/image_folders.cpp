#include "apps/examples/image_folders.h"

// clang-format off: jpeglib.h needs stdio.h before it
#include <jpeglib.h>
#include <cstdio>
// clang-format on
#include <png.h>

#include <filesystem>
#include <memory>

#include "kiln/datasets/idx_file.h"
#include "kiln/framework/core/error.h"

namespace kiln::examples {
namespace {

const char* const kClasses[] = {"t-shirt_top", "trouser", "pullover", "dress", "coat",
                                "sandal",      "shirt",   "sneaker",  "bag",   "ankle_boot"};

void write_png(const std::string& path, const uint8_t* pixels, int height, int width) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_GRAY;
  KILN_CHECK(png_image_write_to_file(&image, path.c_str(), 0, pixels, 0, nullptr), path, ": ",
             image.message);
}

void write_jpeg(const std::string& path, const uint8_t* pixels, int height, int width) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), std::fclose);
  KILN_CHECK(file != nullptr, "cannot write ", path);
  jpeg_compress_struct info{};
  jpeg_error_mgr errors{};
  info.err = jpeg_std_error(&errors);  // libjpeg's default exits on error: nothing here fails
  jpeg_create_compress(&info);
  jpeg_stdio_dest(&info, file.get());
  info.image_width = static_cast<JDIMENSION>(width);
  info.image_height = static_cast<JDIMENSION>(height);
  info.input_components = 1;
  info.in_color_space = JCS_GRAYSCALE;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, 95, TRUE);
  jpeg_start_compress(&info, TRUE);
  for (int y = 0; y < height; ++y) {
    JSAMPROW row = const_cast<uint8_t*>(pixels + static_cast<ptrdiff_t>(y) * width);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
}

int64_t write_split(const std::string& fashion_mnist_dir, const std::string& split,
                    const std::filesystem::path& out, ImageFileFormat format, int64_t limit) {
  const datasets::IdxArray images =
      datasets::read_idx_u8(fashion_mnist_dir + "/" + split + "-images-idx3-ubyte.gz");
  const datasets::IdxArray labels =
      datasets::read_idx_u8(fashion_mnist_dir + "/" + split + "-labels-idx1-ubyte.gz");
  const int height = static_cast<int>(images.dims[1]), width = static_cast<int>(images.dims[2]);
  const int64_t n = limit > 0 ? std::min(limit, images.dims[0]) : images.dims[0];
  for (int label = 0; label < 10; ++label)
    std::filesystem::create_directories(out / (std::to_string(label) + "_" + kClasses[label]));
  for (int64_t i = 0; i < n; ++i) {
    const int label = labels.data[static_cast<size_t>(i)];
    const std::filesystem::path file =
        out / (std::to_string(label) + "_" + kClasses[label]) /
        (std::to_string(i) + (format == ImageFileFormat::png ? ".png" : ".jpg"));
    const uint8_t* pixels = images.data.data() + i * height * width;
    (format == ImageFileFormat::png ? write_png : write_jpeg)(file.string(), pixels, height, width);
  }
  return n;
}

}  // namespace

int64_t write_fashion_mnist_folders(const std::string& out, ImageFileFormat format,
                                    int64_t train_limit, int64_t test_limit,
                                    const std::string& fashion_mnist_dir) {
  const std::filesystem::path root(out);
  return write_split(fashion_mnist_dir, "train", root / "train", format, train_limit) +
         write_split(fashion_mnist_dir, "t10k", root / "test", format, test_limit);
}

}  // namespace kiln::examples
