#pragma once
// Fashion-MNIST as a folder of image files, one subfolder per class, made from the Debian
// package's IDX files: the real data for the image_directory source's tests and run files.
// Folders are named "<label>_<class>" ("0_t-shirt_top", ..., "9_ankle_boot"), so their sorted
// order, which image_directory makes the class order, keeps the IDX labels.
#include <cstdint>
#include <string>

namespace kiln::examples {

enum class ImageFileFormat { png, jpeg };

// Writes <out>/train/<class>/<index>.<ext> for the first train_limit training images and
// <out>/test/<class>/... for the first test_limit test images (0: all), from the package at
// `fashion_mnist_dir`. PNG keeps the pixels; JPEG is written at quality 95. Returns the number of
// files written.
int64_t write_fashion_mnist_folders(const std::string& out, ImageFileFormat format,
                                    int64_t train_limit, int64_t test_limit,
                                    const std::string& fashion_mnist_dir);

}  // namespace kiln::examples
