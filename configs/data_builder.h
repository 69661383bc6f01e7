#pragma once
// The `data` section of a run file: which dataset, how it is batched, and the splits.
//
//   data:
//     dataset: fashion_mnist          # or fortunes_language_id
//     path: /usr/share/...            # optional; the package's location by default
//     batch_size: 128
//     shuffle: true
//     validation_split: 0.1           # fashion_mnist: the last fraction of the training images
//     limit: 6000                     # optional: the first N training examples (tests: N/6)
//   fortunes_language_id only:
//     max_length: 400                 # characters kept from each entry
//     bucket_boundaries: [32, 64, 128, 401]   # bucketing by length (else padded per batch)
//     pad_to_bucket_boundary: true
//
// What the data says about itself (vocabulary_size, num_classes) can be used in the model as
// "${data.vocabulary_size}".
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
