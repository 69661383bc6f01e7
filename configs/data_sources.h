#pragma once
// The sources a run file's data section names (configs/data_builder.h): each a registered name
// with the arguments it takes, how they are checked without loading the data, and how the
// section's datasets are built from them.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kiln/configs/data_builder.h"
#include "kiln/framework/core/config.h"
#include "kiln/framework/core/named_registry.h"

namespace kiln::configs {

struct DataSource {
  std::vector<std::string> keys;  // its arguments
  // Checks the arguments' values (and that named files exist); reads no examples.
  std::function<void(const Config& args, const Config& data)> check;
  // `data` is the whole section: batch_size, shuffle, validation_split, limit, cache.
  std::function<RunData(const Config& args, const Config& data, uint64_t seed)> build;
  // Whether it decodes files example by example, which the section's cache saves redoing.
  bool decodes_files = false;
  // A source that learns vocabularies from the training split (csv): its build with a run's
  // saved ones instead.
  std::function<RunData(const Config& args, const Config& data, uint64_t seed,
                        const SavedVocabularies& saved)>
      build_with_saved = nullptr;
};

// fashion_mnist, fortunes_language_id, csv, image_directory, text_directory, text_lines, npy,
// npz, hdf5 and timeseries.
const NamedRegistry<DataSource>& data_sources();

// The registered sources (each in a file of its own).
DataSource fashion_mnist_source();
DataSource fortunes_source();
DataSource csv_source();
DataSource image_directory_source();
DataSource text_directory_source();
DataSource text_lines_source();
DataSource npy_source();
DataSource npz_source();
DataSource hdf5_source();
DataSource timeseries_source();

}  // namespace kiln::configs
