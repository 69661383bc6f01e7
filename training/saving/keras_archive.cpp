#include "kiln/training/saving/keras_archive.h"

#include <zip.h>

#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/limits.h"
#include "kiln/training/saving/atomic_write.h"

namespace kiln::saving {
namespace {

struct ArchiveCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;

struct FileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};

std::string zip_message(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string message = zip_error_strerror(&error);
  zip_error_fini(&error);
  return message;
}

Archive open_archive(const std::string& path, int flags) {
  int code = 0;
  Archive archive(zip_open(path.c_str(), flags, &code));
  KILN_CHECK(archive != nullptr, "cannot open ", path, " as a zip archive: ", zip_message(code));
  return archive;
}

// The most an entry may hold uncompressed: a zip declares its entries' sizes, and a small file
// can declare (or deflate to) gigabytes. JSON entries (config.json, metadata.json) are small in
// any real model; the weights may be large. The environment raises either bound.
struct EntryLimit {
  int64_t bytes;
  const char* variable;
};

EntryLimit limit_for(const std::string& name) {
  if (name.ends_with(".json"))
    return {limit_from_environment("KILN_JSON_MAX_BYTES", int64_t{64} << 20),
            "KILN_JSON_MAX_BYTES"};
  return {limit_from_environment("KILN_ZIP_MAX_ENTRY_BYTES", int64_t{64} << 30),
          "KILN_ZIP_MAX_ENTRY_BYTES"};
}

// Read in chunks as the bytes arrive, never by the size the entry declares: nothing is allocated
// for bytes that are not there, and a bomb stops at the limit. (libzip 1.7 also corrupts single
// reads over 4 GiB.)
std::string read_entry(zip_t* archive, zip_uint64_t index, const std::string& name,
                       const std::string& where) {
  const EntryLimit limit = limit_for(name);
  const std::unique_ptr<zip_file_t, FileCloser> file(zip_fopen_index(archive, index, 0));
  KILN_CHECK(file != nullptr, where, ": ", zip_strerror(archive));
  std::string bytes;
  std::vector<char> chunk(size_t{1} << 20);
  while (true) {
    const zip_int64_t got = zip_fread(file.get(), chunk.data(), chunk.size());
    KILN_CHECK(got >= 0, where, ": truncated or corrupt entry: ", zip_file_strerror(file.get()));
    if (got == 0) return bytes;
    KILN_CHECK(static_cast<int64_t>(bytes.size()) + got <= limit.bytes, where, ": more than ",
               limit.bytes, " bytes uncompressed; set ", limit.variable, " to allow more");
    bytes.append(chunk.data(), static_cast<size_t>(got));
  }
}

}  // namespace

void write_zip_archive(const std::string& path, const std::vector<ArchiveEntry>& entries) {
  write_atomically(path, [&](const std::string& temporary) {
    Archive archive = open_archive(temporary, ZIP_CREATE | ZIP_TRUNCATE);
    for (const ArchiveEntry& entry : entries) {
      // The source borrows the bytes (freep 0): they outlive zip_close below.
      zip_source_t* source =
          zip_source_buffer(archive.get(), entry.bytes.data(), entry.bytes.size(), 0);
      KILN_CHECK(source != nullptr, path, ": ", zip_strerror(archive.get()));
      const zip_int64_t index =
          zip_file_add(archive.get(), entry.name.c_str(), source, ZIP_FL_ENC_UTF_8);
      if (index < 0) {
        zip_source_free(source);
        throw Error(
            detail::concat(path, ": cannot add ", entry.name, ": ", zip_strerror(archive.get())));
      }
      // Stored, as Keras writes its entries (h5py-written weights do not compress much).
      KILN_CHECK(zip_set_file_compression(archive.get(), static_cast<zip_uint64_t>(index),
                                          ZIP_CM_STORE, 0) == 0,
                 path, ": ", zip_strerror(archive.get()));
    }
    zip_t* raw = archive.release();
    if (zip_close(raw) != 0) {
      const std::string message = zip_strerror(raw);
      zip_discard(raw);
      throw Error(detail::concat("cannot write ", path, ": ", message));
    }
  });
}

std::vector<ArchiveEntry> read_zip_archive(const std::string& path) {
  const Archive archive = open_archive(path, ZIP_RDONLY | ZIP_CHECKCONS);
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  std::vector<ArchiveEntry> entries;
  for (zip_int64_t i = 0; i < count; ++i) {
    const auto index = static_cast<zip_uint64_t>(i);
    const char* name = zip_get_name(archive.get(), index, ZIP_FL_ENC_GUESS);
    KILN_CHECK(name != nullptr, path, ": entry ", i, ": ", zip_strerror(archive.get()));
    entries.push_back(
        {name, read_entry(archive.get(), index, name, path + ":" + std::string(name))});
  }
  return entries;
}

const std::string& archive_entry(const std::vector<ArchiveEntry>& entries, const std::string& name,
                                 const std::string& archive_path) {
  std::string names;
  for (const ArchiveEntry& entry : entries) {
    if (entry.name == name) return entry.bytes;
    names += (names.empty() ? "" : ", ") + entry.name;
  }
  throw Error(detail::concat(archive_path, " has no ", name,
                             " (its entries: ", names.empty() ? "none" : names, ")"));
}

}  // namespace kiln::saving
