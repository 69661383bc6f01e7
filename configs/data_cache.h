#pragma once
// The data section's `cache`, for the sources that decode files (csv, image_directory,
// text_directory, text_lines): `true` keeps the decoded training and validation examples in
// memory after the first epoch, a file name keeps them in that file (the validation examples in
// "<file>.validation"), which later epochs and later runs read instead of decoding again.
#include <string>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/core/config.h"

namespace kiln::configs {

// Refuses a cache that is neither a bool nor a file name in an existing folder, and one given to
// `source`, which does not decode files.
void check_cache(const Config& data, const std::string& source, bool decodes_files);

// `examples` cached as the section says; `suffix` ("" for training, ".validation") names its file.
datasets::Dataset cached_as_configured(const Config& data, datasets::Dataset examples,
                                       const std::string& suffix);

}  // namespace kiln::configs
