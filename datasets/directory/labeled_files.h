#pragma once
// The files of a folder with a subfolder per class, as Keras's *_dataset_from_directory
// utilities index them:
// - with labels inferred, each subfolder (sorted; hidden ones left out) is a class, and its
//   files, in nested folders too, are that class's;
// - the files, ordered by folder and name, are shuffled with numpy's RandomState(seed) as Keras
//   shuffles them, so a seed puts the same files in the validation split (the last
//   int(validation_split * n)) in kiln and in Keras.
// The image and text folder sources (image/image_directory.h, text/text_directory.h) read them.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

enum class LabelMode { integer, categorical, binary, none };

// "int", "categorical", "binary", or "none" (no labels); others are refused naming these.
LabelMode label_mode(const std::string& name);

// Members have initializers so that designated initializers may name any subset of them.
struct LabeledFileOptions {
  std::string directory = {};
  bool inferred_labels = true;  // false: every file, no labels (labels=None)
  LabelMode label_mode = LabelMode::integer;
  std::vector<std::string> class_names = {};  // a subset of the subfolders, in this order
  bool shuffle = true;
  uint32_t seed = 0;
  bool follow_links = false;
};

struct LabeledFiles {
  std::vector<std::string> paths;
  std::vector<int32_t> labels;  // empty without labels
  std::vector<std::string> class_names;
};

// The files whose names end in one of `extensions` (lower case; matched in any case), and their
// labels, shuffled by the seed when options.shuffle. An empty folder (`what` names what it lacks:
// "images"), a class_names entry that is no subfolder, or binary labels over other than two
// classes is an error naming the directory.
LabeledFiles index_labeled_files(const LabeledFileOptions& options,
                                 std::span<const std::string> extensions, std::string_view what);

// The first `limit` files (all when limit <= 0): a run's data.limit.
LabeledFiles first_files(LabeledFiles files, int64_t limit);

enum class Subset { all, training, validation };

// Keras's split of n examples: the last int(validation_split * n) validate, the others train.
// The [begin, end) of the subset.
std::pair<size_t, size_t> subset_range(size_t n, double validation_split, Subset subset);
LabeledFiles labeled_subset(const LabeledFiles& files, double validation_split, Subset subset);

// A label as label_mode gives it: int32 scalar (int), float32 one-hot over `classes`
// (categorical), float32 [1] (binary); undefined for none.
Tensor label_tensor(int32_t label, LabelMode mode, int64_t classes);

}  // namespace kiln::datasets
