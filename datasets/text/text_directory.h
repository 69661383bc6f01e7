#pragma once
// Folders of text as datasets of strings:
// - text_directory is Keras's text_dataset_from_directory: each .txt file is one example, read
//   whole (its bytes, as tf.io.read_file), labelled by its class subfolder; the files are
//   indexed, shuffled and split as datasets/directory/labeled_files.h says, as Keras does.
// - text_lines (kiln's) reads the same folders with one example per line: each non-empty line
//   of every .txt file (its "\n" or "\r\n" removed) is an example with its file's label. The
//   lines, in file order, are shuffled with numpy's RandomState(seed) before the split, so the
//   validation split takes lines from every file.
// Elements are (string scalar, label) as label_tensor gives it, or (string scalar) without labels.
// Files are read on num_parallel_calls threads, in order; one that cannot be read is an error
// naming it.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/datasets/directory/labeled_files.h"

namespace kiln::datasets {

// Members have initializers so that designated initializers may name any subset of them.
struct TextDirectoryOptions {
  LabeledFileOptions files = {};
  int64_t max_length = -1;  // bytes kept from the start of each text; -1 keeps all
  int num_parallel_calls = kAutotune;
};

// The .txt files under options.files.directory and their labels.
LabeledFiles index_text_directory(const TextDirectoryOptions& options);
// One example per file.
Dataset text_dataset(const LabeledFiles& files, const TextDirectoryOptions& options);

struct TextLines {
  struct Line {
    uint64_t offset = 0;  // bytes into its file
    uint64_t length = 0;  // bytes, without the line end
    uint32_t file = 0;    // index into paths
    int32_t label = 0;    // unused without labels
  };
  std::vector<std::string> paths;
  std::vector<Line> lines;
  std::vector<std::string> class_names;
  bool labelled = true;
};

// Every non-empty line of the .txt files, shuffled by the seed when options.files.shuffle. A
// folder without a non-empty line is an error naming it.
TextLines index_text_lines(const TextDirectoryOptions& options);
TextLines lines_subset(const TextLines& lines, double validation_split, Subset subset);
// One example per line.
Dataset text_lines_dataset(const TextLines& lines, const TextDirectoryOptions& options);

}  // namespace kiln::datasets
