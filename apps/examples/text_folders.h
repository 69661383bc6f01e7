#pragma once
// The fortunes corpus as a folder of text files, one subfolder per language: the real data for
// the text_directory source's run file (configs/fortunes_text_folder.yaml).
#include <cstdint>
#include <string>

namespace kiln::examples {

// Writes <out>/<language>/<index>.txt, one fortune per file, for the first `limit` entries of
// each language (0: all), from the packages at `fortunes_dir`. Returns the number of files.
int64_t write_fortune_folders(const std::string& out, int64_t limit,
                              const std::string& fortunes_dir);

}  // namespace kiln::examples
