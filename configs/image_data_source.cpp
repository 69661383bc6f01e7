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
#include <algorithm>
#include <filesystem>

#include "kiln/configs/data_sources.h"
#include "kiln/configs/keras_objects.h"
#include "kiln/datasets/image/image_directory.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"

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
  KILN_CHECK(args.contains("directory"), args.where(), "image_directory needs a directory");
  datasets::ImageDirectoryOptions o;
  o.directory = args[directory_key].as_string();
  const Config* labels = args.find("labels");
  if (labels != nullptr && !labels->is_null())
    KILN_CHECK(labels->as_string() == "inferred", labels->where(),
               "labels must be inferred or null, got '", labels->as_string(), "'");
  o.inferred_labels = labels == nullptr || !labels->is_null();
  const Config* mode = args.find("label_mode");
  o.label_mode = !o.inferred_labels || (mode != nullptr && mode->is_null())
                     ? datasets::LabelMode::none
                     : located(mode ? *mode : args, [&] {
                         return datasets::label_mode(args.get_string("label_mode", "int"));
                       });
  if (args.contains("class_names")) o.class_names = args["class_names"].as_string_list();
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
  o.shuffle = data.get_bool("shuffle", true);
  o.seed = static_cast<uint32_t>(args.get_int("seed", static_cast<int64_t>(seed)));
  o.follow_links = args.get_bool("follow_links", false);
  const std::string on_error = args.get_string("on_error", "raise");
  KILN_CHECK(on_error == "raise" || on_error == "skip", args["on_error"].where(),
             "on_error must be raise or skip, got '", on_error, "'");
  o.skip_bad_files = on_error == "skip";
  if (const Config* calls = args.find("num_parallel_calls"); calls != nullptr && !calls->is_null())
    o.num_parallel_calls = calls->is_string() && calls->as_string() == "autotune"
                               ? datasets::kAutotune
                               : static_cast<int>(calls->as_int());
  KILN_CHECK(o.num_parallel_calls == datasets::kAutotune || o.num_parallel_calls >= 1,
             args["num_parallel_calls"].where(),
             "num_parallel_calls must be autotune or at least 1");
  return o;
}

datasets::ImageFiles first_files(datasets::ImageFiles files, int64_t limit) {
  if (limit <= 0 || static_cast<size_t>(limit) >= files.paths.size()) return files;
  files.paths.resize(static_cast<size_t>(limit));
  if (!files.labels.empty()) files.labels.resize(static_cast<size_t>(limit));
  return files;
}

RunData image_directory(const Config& args, const Config& data, uint64_t seed) {
  const datasets::ImageDirectoryOptions o = options_of(args, data, seed, "directory");
  const datasets::ImageFiles all = located(args["directory"], [&] {
    return first_files(datasets::index_image_directory(o), data.get_int("limit", 0));
  });
  const double split = data.get_double("validation_split", 0);
  const int64_t batch = data.get_int("batch_size", 32);
  // As Keras, a split left without images is refused rather than trained or validated on nothing.
  for (const auto subset : {datasets::ImageSubset::training, datasets::ImageSubset::validation})
    KILN_CHECK(split <= 0 || !datasets::image_subset(all, split, subset).paths.empty(),
               args["directory"].where(), o.directory, ": validation_split ", split, " of ",
               all.paths.size(), " images leaves no ",
               subset == datasets::ImageSubset::training ? "training" : "validation", " images");
  datasets::Dataset train = datasets::image_dataset(
      datasets::image_subset(all, split, datasets::ImageSubset::training), o);
  if (o.shuffle) train = train.shuffle(static_cast<size_t>(batch) * 8, seed);
  std::optional<datasets::Dataset> validation;
  if (split > 0)
    validation = datasets::image_dataset(
                     datasets::image_subset(all, split, datasets::ImageSubset::validation), o)
                     .batch(batch)
                     .prefetch(2);
  std::optional<datasets::Dataset> test;
  if (args.contains("test_directory")) {
    datasets::ImageDirectoryOptions t = options_of(args, data, seed, "test_directory");
    t.shuffle = false;
    if (o.class_names.empty()) t.class_names = all.class_names;
    const datasets::ImageFiles test_files =
        located(args["test_directory"], [&] { return datasets::index_image_directory(t); });
    test = datasets::image_dataset(test_files, t).batch(batch).prefetch(2);
  }
  std::map<std::string, Config> facts;
  if (!all.class_names.empty())
    facts.emplace("num_classes", Config(static_cast<int64_t>(all.class_names.size())));
  log(LogLevel::info, "image_directory: ", all.paths.size(), " images",
      all.class_names.empty() ? "" : " in " + std::to_string(all.class_names.size()) + " classes");
  return {train.batch(batch).prefetch(2), validation, test, facts};
}

// Checks the arguments and that the folders exist; lists no images.
void check_image_directory(const Config& args, const Config& data) {
  const datasets::ImageDirectoryOptions o = options_of(args, data, 0, "directory");
  for (const char* key : {"directory", "test_directory"})
    if (args.contains(key))
      KILN_CHECK(std::filesystem::is_directory(args[key].as_string()), args[key].where(),
                 args[key].as_string(), ": no such directory");
  KILN_CHECK(o.inferred_labels || !args.contains("class_names"), args["class_names"].where(),
             "class_names needs inferred labels");
}

}  // namespace

DataSource image_directory_source() {
  return {{"directory", "labels", "label_mode", "class_names", "color_mode", "image_size",
           "interpolation", "crop_to_aspect_ratio", "seed", "follow_links", "on_error",
           "test_directory", "num_parallel_calls"},
          check_image_directory,
          image_directory};
}

}  // namespace kiln::configs
