#pragma once
// A folder of images as a dataset, as Keras's image_dataset_from_directory reads one:
// - with labels "inferred", each subfolder (sorted; hidden ones left out) is a class, and its
//   images, in nested folders too, are that class's;
// - the files, ordered by folder and name, are shuffled with numpy's RandomState(seed) as Keras
//   shuffles them, so a seed puts the same files in the validation split (the last
//   int(validation_split * n)) in kiln and in Keras;
// - each image is decoded (decode_image.h) to the color mode's channels, cropped to the target
//   aspect ratio if asked, and resized to image_size (resize_image.h): float32 [h, w, c] in
//   [0, 255].
// Files are recognized by extension, as Keras does (.bmp, .gif, .jpeg, .jpg, .png, any case),
// and kiln adds .webp.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/datasets/image/resize_image.h"

namespace kiln::datasets {

enum class LabelMode { integer, categorical, binary, none };

// "int", "categorical", "binary", or "none" (no labels); others are refused naming these.
LabelMode label_mode(const std::string& name);

// Members have initializers so that designated initializers may name any subset of them.
struct ImageDirectoryOptions {
  std::string directory = {};
  bool inferred_labels = true;  // false: every file, no labels (labels=None)
  LabelMode label_mode = LabelMode::integer;
  std::vector<std::string> class_names = {};  // a subset of the subfolders, in this order
  int channels = 3;                           // color_mode: grayscale 1, rgb 3, rgba 4
  int64_t height = 256, width = 256;          // image_size
  Interpolation interpolation = Interpolation::bilinear;
  bool crop_to_aspect_ratio = false;
  bool shuffle = true;
  uint32_t seed = 0;
  bool follow_links = false;
  bool skip_bad_files = false;  // on_error: skip; else a file that does not decode is an error
  int num_parallel_calls = kAutotune;  // images decoded at once (Dataset::map)
};

struct ImageFiles {
  std::vector<std::string> paths;
  std::vector<int32_t> labels;  // empty without labels
  std::vector<std::string> class_names;
};

// The images and their labels, shuffled by the seed when options.shuffle. An empty folder, a
// class_names entry that is no subfolder, or binary labels over other than two classes is an
// error naming the directory.
ImageFiles index_image_directory(const ImageDirectoryOptions& options);

enum class ImageSubset { all, training, validation };

// Keras's split: the last int(validation_split * n) files validate, the others train.
ImageFiles image_subset(const ImageFiles& files, double validation_split, ImageSubset subset);

// (image, label) elements in the files' order, or (image) without labels: int labels are int32
// scalars, categorical ones float32 one-hot, binary ones float32 [1]. Images decode on
// num_parallel_calls threads, in order. With skip_bad_files a file that does not decode is passed
// over and counted in `skipped`, if given.
Dataset image_dataset(const ImageFiles& files, const ImageDirectoryOptions& options,
                      std::shared_ptr<std::atomic<int64_t>> skipped = nullptr);

}  // namespace kiln::datasets
