#pragma once
// A folder of images as a dataset, as Keras's image_dataset_from_directory reads one:
// - the files and labels are indexed as datasets/directory/labeled_files.h says;
// - each image is decoded (decode_image.h) to the color mode's channels, cropped to the target
//   aspect ratio if asked, and resized to image_size (resize_image.h): float32 [h, w, c] in
//   [0, 255].
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/datasets/directory/labeled_files.h"
#include "kiln/datasets/image/resize_image.h"

namespace kiln::datasets {

// Members have initializers so that designated initializers may name any subset of them.
struct ImageDirectoryOptions {
  LabeledFileOptions files = {};
  int channels = 3;                   // color_mode: grayscale 1, rgb 3, rgba 4
  int64_t height = 256, width = 256;  // image_size
  Interpolation interpolation = Interpolation::bilinear;
  bool crop_to_aspect_ratio = false;
  bool skip_bad_files = false;  // on_error: skip; else a file that does not decode is an error
  int num_parallel_calls = kAutotune;  // images decoded at once (Dataset::map)
};

// The image files (by extension, as Keras: .bmp, .gif, .jpeg, .jpg, .png, any case; kiln adds
// .webp) and their labels; see labeled_files.h.
LabeledFiles index_image_directory(const ImageDirectoryOptions& options);

// (image, label) elements in the files' order, or (image) without labels: int labels are int32
// scalars, categorical ones float32 one-hot, binary ones float32 [1]. Images decode on
// num_parallel_calls threads, in order. With skip_bad_files a file that does not decode is passed
// over and counted in `skipped`, if given.
Dataset image_dataset(const LabeledFiles& files, const ImageDirectoryOptions& options,
                      std::shared_ptr<std::atomic<int64_t>> skipped = nullptr);

}  // namespace kiln::datasets
