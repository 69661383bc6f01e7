#pragma once
// The `data` section of a run file: a source of examples, how they are batched, and the splits.
// The source is written like every Keras object, {name: {arguments}}, beside the section's keys:
//
//   data:
//     fashion_mnist: {}               # {path: ...}; the package's location by default
//     batch_size: 128
//     shuffle: true
//     validation_split: 0.1           # the last fraction of the training examples
//     limit: 6000                     # optional: the first N training examples (tests: N/6)
//
// Sources (configs/data_sources.h): fashion_mnist; fortunes_language_id {path, max_length,
// bucket_boundaries, pad_to_bucket_boundary} (its own validation split); csv (configs/
// csv_data_source.cpp). The older form names a packaged dataset with `dataset:` and puts its
// arguments beside it (`dataset: fortunes_language_id`, `max_length: 400`).
//
// What the data says about itself (num_classes, vocabulary_size, num_features) can be used in
// the model as "${data.num_classes}".
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "kiln/datasets/csv/csv_source.h"
#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/config.h"

namespace kiln::configs {

struct RunData {
  datasets::Dataset train;
  std::optional<datasets::Dataset> validation;
  std::optional<datasets::Dataset> test;
  std::map<std::string, Config> facts;  // "num_classes", "vocabulary_size"
  // What the source learned from the training split (csv's string columns), which a run saves
  // beside its model and gives back to the later builds over it.
  datasets::CsvVocabularies vocabularies;
};

// A run's vocabularies as it saved them, and the file they came from (for errors).
struct SavedVocabularies {
  std::string path;
  datasets::CsvVocabularies columns;
};

// Checks the section's keys and values; loads nothing.
void check_data(const Config& data);
// With `saved`, a source that learns vocabularies from the training split takes those instead.
RunData build_data(const Config& data, uint64_t seed,
                   const std::optional<SavedVocabularies>& saved = std::nullopt);

// The vocabularies file of a run's directory, and its reading and writing (JSON: each column's
// values in order).
std::string vocabularies_path(const std::string& output_dir);
void write_vocabularies(const datasets::CsvVocabularies& vocabularies, const std::string& path);
std::optional<SavedVocabularies> read_vocabularies(const std::string& path);

// Replaces "${data.<fact>}" strings anywhere in `config` with the data's facts; an unknown fact
// is an error naming the value's place in the file.
void substitute_data_facts(Config& config, const std::map<std::string, Config>& facts);

}  // namespace kiln::configs
