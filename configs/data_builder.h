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

#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/config.h"

namespace kiln::configs {

struct RunData {
  datasets::Dataset train;
  std::optional<datasets::Dataset> validation;
  std::optional<datasets::Dataset> test;
  std::map<std::string, Config> facts;  // "num_classes", "vocabulary_size"
};

// Checks the section's keys and values; loads nothing.
void check_data(const Config& data);
RunData build_data(const Config& data, uint64_t seed);

// Replaces "${data.<fact>}" strings anywhere in `config` with the data's facts; an unknown fact
// is an error naming the value's place in the file.
void substitute_data_facts(Config& config, const std::map<std::string, Config>& facts);

}  // namespace kiln::configs
