#pragma once
// What the folder sources (image_directory, text_directory, text_lines) share: Keras's
// arguments for indexing a folder of class subfolders, and how their run data is split,
// shuffled and batched.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/configs/data_builder.h"
#include "kiln/datasets/directory/labeled_files.h"
#include "kiln/framework/core/config.h"

namespace kiln::configs {

// directory (from `directory_key`), labels (inferred or null), label_mode, class_names, seed
// (default: the run's), follow_links, and the section's shuffle.
datasets::LabeledFileOptions labeled_file_options(const Config& args, const Config& data,
                                                  uint64_t seed, const std::string& directory_key);
// num_parallel_calls: autotune (the default) or at least 1.
int num_parallel_calls_of(const Config& args);
// Checks that `directory` and `test_directory`, where given, are folders, and that class_names
// comes with inferred labels.
void check_directories(const Config& args);

// A folder source's datasets: `examples` of them (`what`: "images") in `class_names`; make(subset)
// gives a subset's unbatched elements, make_test (when set: a test_directory) the test set's.
// A validation split left without examples is refused. The training set is shuffled in a
// buffer of 8 batches when the section shuffles; every set is batched and prefetched.
struct FolderData {
  size_t examples = 0;
  std::vector<std::string> class_names;
  std::function<datasets::Dataset(datasets::Subset)> make;
  std::function<datasets::Dataset()> make_test;
};
RunData folder_run_data(const Config& args, const Config& data, uint64_t seed,
                        std::string_view source, std::string_view what, const FolderData& folder);

}  // namespace kiln::configs
