// {text_directory: {...}} and {text_lines: {...}}: folders of .txt files with a subfolder per
// class (datasets/text/text_directory.h). text_directory is Keras's text_dataset_from_directory,
// one example per file; text_lines reads one example per non-empty line. Their arguments:
//   directory: reviews/           # required
//   labels: inferred              # or null: no labels
//   label_mode: int               # categorical, binary, or null
//   class_names: [neg, pos]       # a subset of the subfolders, in this order
//   max_length: 2000              # bytes kept from the start of each text
//   seed: 42                      # the shuffle before the split (default: the run's seed)
//   follow_links: false
//   test_directory: reviews_test/ # kiln's: a folder of the same classes, evaluated after training
//   num_parallel_calls: autotune  # files read at once, or a number
// The elements are (string, label): a model takes them through a TextVectorization layer. The
// section's shuffle, validation_split and limit (the first N examples) work as for
// image_directory.
#include "kiln/configs/data_sources.h"
#include "kiln/configs/directory_source_args.h"
#include "kiln/configs/keras_objects.h"
#include "kiln/datasets/text/text_directory.h"
#include "kiln/framework/core/error.h"

namespace kiln::configs {
namespace {

datasets::TextDirectoryOptions options_of(const Config& args, const Config& data, uint64_t seed,
                                          const std::string& directory_key) {
  datasets::TextDirectoryOptions o;
  o.files = labeled_file_options(args, data, seed, directory_key);
  if (const Config* max = args.find("max_length"); max != nullptr && !max->is_null()) {
    o.max_length = max->as_int();
    KILN_CHECK(o.max_length >= 0, max->where(), "max_length must be at least 0");
  }
  o.num_parallel_calls = num_parallel_calls_of(args);
  return o;
}

// The test folder's options: unshuffled, with the training folder's classes.
datasets::TextDirectoryOptions test_options(const Config& args, const Config& data, uint64_t seed,
                                            const std::vector<std::string>& class_names) {
  datasets::TextDirectoryOptions t = options_of(args, data, seed, "test_directory");
  t.files.shuffle = false;
  if (t.files.class_names.empty()) t.files.class_names = class_names;
  return t;
}

RunData text_directory(const Config& args, const Config& data, uint64_t seed) {
  const datasets::TextDirectoryOptions o = options_of(args, data, seed, "directory");
  const datasets::LabeledFiles all = located(args["directory"], [&] {
    return datasets::first_files(datasets::index_text_directory(o), data.get_int("limit", 0));
  });
  const double split = data.get_double("validation_split", 0);
  FolderData folder{all.paths.size(), all.class_names,
                    [&](datasets::Subset subset) {
                      return datasets::text_dataset(datasets::labeled_subset(all, split, subset),
                                                    o);
                    },
                    nullptr};
  if (args.contains("test_directory"))
    folder.make_test = [&] {
      const datasets::TextDirectoryOptions t = test_options(args, data, seed, all.class_names);
      return datasets::text_dataset(
          located(args["test_directory"], [&] { return datasets::index_text_directory(t); }), t);
    };
  return folder_run_data(args, data, seed, "text_directory", "text files", folder);
}

RunData text_lines(const Config& args, const Config& data, uint64_t seed) {
  const datasets::TextDirectoryOptions o = options_of(args, data, seed, "directory");
  datasets::TextLines all =
      located(args["directory"], [&] { return datasets::index_text_lines(o); });
  if (const int64_t limit = data.get_int("limit", 0);
      limit > 0 && static_cast<size_t>(limit) < all.lines.size())
    all.lines.resize(static_cast<size_t>(limit));
  const double split = data.get_double("validation_split", 0);
  FolderData folder{all.lines.size(), all.class_names,
                    [&](datasets::Subset subset) {
                      return datasets::text_lines_dataset(
                          datasets::lines_subset(all, split, subset), o);
                    },
                    nullptr};
  if (args.contains("test_directory"))
    folder.make_test = [&] {
      const datasets::TextDirectoryOptions t = test_options(args, data, seed, all.class_names);
      return datasets::text_lines_dataset(
          located(args["test_directory"], [&] { return datasets::index_text_lines(t); }), t);
    };
  return folder_run_data(args, data, seed, "text_lines", "lines", folder);
}

void check_text_folder(const Config& args, const Config& data) {
  (void)options_of(args, data, 0, "directory");
  check_directories(args);
}

const std::vector<std::string> kKeys{"directory",    "labels",         "label_mode",
                                     "class_names",  "max_length",     "seed",
                                     "follow_links", "test_directory", "num_parallel_calls"};

}  // namespace

DataSource text_directory_source() {
  return {kKeys, check_text_folder, text_directory, /*decodes_files=*/true};
}

DataSource text_lines_source() {
  return {kKeys, check_text_folder, text_lines, /*decodes_files=*/true};
}

}  // namespace kiln::configs
