#pragma once
// The zip container of a Keras 3 `.keras` file: named entries (metadata.json, config.json,
// model.weights.h5) stored uncompressed, as Keras stores them. Written atomically (a crash
// leaves the previous file whole); reading checks each entry's CRC (libzip does).
#include <string>
#include <utility>
#include <vector>

namespace kiln::saving {

struct ArchiveEntry {
  std::string name;
  std::string bytes;
};

void write_zip_archive(const std::string& path, const std::vector<ArchiveEntry>& entries);

// Every entry of the zip at `path`; an error naming the path when it is missing or not a zip.
std::vector<ArchiveEntry> read_zip_archive(const std::string& path);

// The entry named `name`; an error naming the archive and the entries it has when absent.
const std::string& archive_entry(const std::vector<ArchiveEntry>& entries, const std::string& name,
                                 const std::string& archive_path);

}  // namespace kiln::saving
