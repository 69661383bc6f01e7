// {image_directory: {...}}: a folder of images with a subfolder per class, as Keras's
// image_dataset_from_directory reads one (datasets/image/image_directory.h), with its arguments:
//   directory: photos/            # required
//   labels: inferred              # or null: no labels (for models that need none)
//   label_mode: int               # categorical, binary, or null
//   class_names: [cat, dog]       # a subset of the subfolders, in this order
//   color_mode: rgb               # grayscale, rgba
//   image_size: [256, 256]        # [height, width]
//   interpolation: bilinear       # nearest, bicubic
//   crop_to_aspect_ratio: false
//   seed: 42                      # the file shuffle's (default: the run's seed)
//   follow_links: false
//   on_error: raise               # or skip: an image that does not decode is passed over
//   test_directory: photos_test/  # kiln's: a folder of the same classes, evaluated after training
//   num_parallel_calls: autotune  # images decoded at once (tf.data's map argument), or a number
// The section's shuffle shuffles the files before the split (as Keras's `shuffle`) and then the
// training images in a buffer of 8 batches each epoch; validation_split takes the last fraction
// of the shuffled files, as Keras's subset "both"; limit keeps the first N files. Images are
// decoded on a background thread ahead of the training step.
#include "kiln/configs/data_sources.h"
#include "kiln/configs/directory_source_args.h"
#include "kiln/configs/keras_objects.h"
#include "kiln/datasets/image/image_directory.h"
#include "kiln/framework/core/error.h"

namespace kiln::configs {
namespace {

int channels_of(const Config& args) {
  const std::string mode = args.get_string("color_mode", "rgb");
  if (mode == "grayscale") return 1;
  if (mode == "rgb") return 3;
  KILN_CHECK(mode == "rgba", args["color_mode"].where(), "color_mode must be grayscale, rgb or ",
             "rgba, got '", mode, "'");
  return 4;
}

datasets::ImageDirectoryOptions options_of(const Config& args, const Config& data, uint64_t seed,
                                           const std::string& directory_key) {
  datasets::ImageDirectoryOptions o;
  o.files = labeled_file_options(args, data, seed, directory_key);
  o.channels = channels_of(args);
  if (args.contains("image_size")) {
    const std::vector<int64_t> size = args["image_size"].as_int_list();
    KILN_CHECK(size.size() == 2 && size[0] > 0 && size[1] > 0, args["image_size"].where(),
               "image_size must be [height, width], both positive");
    o.height = size[0];
    o.width = size[1];
  }
  o.interpolation = located(args.contains("interpolation") ? args["interpolation"] : args, [&] {
    return ops::parse_interpolation(args.get_string("interpolation", "bilinear"));
  });
  o.crop_to_aspect_ratio = args.get_bool("crop_to_aspect_ratio", false);
  const std::string on_error = args.get_string("on_error", "raise");
  KILN_CHECK(on_error == "raise" || on_error == "skip", args["on_error"].where(),
             "on_error must be raise or skip, got '", on_error, "'");
  o.skip_bad_files = on_error == "skip";
  o.num_parallel_calls = num_parallel_calls_of(args);
  return o;
}

RunData image_directory(const Config& args, const Config& data, uint64_t seed) {
  const datasets::ImageDirectoryOptions o = options_of(args, data, seed, "directory");
  const datasets::LabeledFiles all = located(args["directory"], [&] {
    return datasets::first_files(datasets::index_image_directory(o), data.get_int("limit", 0));
  });
  const double split = data.get_double("validation_split", 0);
  FolderData folder{all.paths.size(), all.class_names,
                    [&](datasets::Subset subset) {
                      return datasets::image_dataset(datasets::labeled_subset(all, split, subset),
                                                     o);
                    },
                    nullptr};
  if (args.contains("test_directory"))
    folder.make_test = [&] {
      datasets::ImageDirectoryOptions t = options_of(args, data, seed, "test_directory");
      t.files.shuffle = false;
      if (o.files.class_names.empty()) t.files.class_names = all.class_names;
      return datasets::image_dataset(
          located(args["test_directory"], [&] { return datasets::index_image_directory(t); }), t);
    };
  return folder_run_data(args, data, seed, "image_directory", "images", folder);
}

// Checks the arguments and that the folders exist; lists no images.
void check_image_directory(const Config& args, const Config& data) {
  (void)options_of(args, data, 0, "directory");
  check_directories(args);
}

}  // namespace

DataSource image_directory_source() {
  return {{"directory", "labels", "label_mode", "class_names", "color_mode", "image_size",
           "interpolation", "crop_to_aspect_ratio", "seed", "follow_links", "on_error",
           "test_directory", "num_parallel_calls"},
          check_image_directory,
          image_directory,
          /*decodes_files=*/true};
}

}  // namespace kiln::configs
