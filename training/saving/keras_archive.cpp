#include "kiln/training/saving/keras_archive.h"

#include <zip.h>

#include <memory>

#include "kiln/framework/core/error.h"
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

std::string read_entry(zip_t* archive, zip_uint64_t index, const std::string& where) {
  zip_stat_t stat;
  KILN_CHECK(zip_stat_index(archive, index, 0, &stat) == 0, where, ": ", zip_strerror(archive));
  const std::unique_ptr<zip_file_t, FileCloser> file(zip_fopen_index(archive, index, 0));
  KILN_CHECK(file != nullptr, where, ": ", zip_strerror(archive));
  std::string bytes(stat.size, '\0');
  const zip_int64_t got = zip_fread(file.get(), bytes.data(), stat.size);
  KILN_CHECK(got == static_cast<zip_int64_t>(stat.size), where,
             ": truncated or corrupt entry: ", zip_file_strerror(file.get()));
  return bytes;
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
    entries.push_back({name, read_entry(archive.get(), index, path + ":" + std::string(name))});
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
