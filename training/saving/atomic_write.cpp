#include "kiln/training/saving/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "kiln/framework/core/error.h"

namespace kiln::saving {
namespace {

void fsync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  KILN_CHECK(fd >= 0, "cannot open ", path, " to sync it: ", std::strerror(errno));
  const int synced = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  KILN_CHECK(synced == 0, "cannot sync ", path, " to disk: ", std::strerror(saved));
}

}  // namespace

void write_atomically(const std::string& path,
                      const std::function<void(const std::string& temporary_path)>& write) {
  namespace fs = std::filesystem;
  const fs::path target = fs::absolute(path);
  const fs::path directory = target.parent_path();
  KILN_CHECK(fs::is_directory(directory), "cannot write ", path, ": the directory ",
             directory.string(), " does not exist");
  // Unique per process, so two writers of the same target never share a temporary.
  const std::string temporary =
      target.string() + ".tmp-" + std::to_string(static_cast<long long>(::getpid()));
  try {
    write(temporary);
    fsync_path(temporary, O_RDONLY);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  std::error_code renamed;
  fs::rename(temporary, target, renamed);
  if (renamed) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw Error(detail::concat("cannot move the new ", path, " into place: ", renamed.message()));
  }
  fsync_path(directory.string(), O_RDONLY | O_DIRECTORY);
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_atomically(path, [&](const std::string& temporary) {
    std::ofstream out(temporary);
    out << text;
    out.close();  // its buffer reaches the file here, where a full disk shows
    KILN_CHECK(!out.fail(), "cannot write ", temporary, ": ", std::strerror(errno));
  });
}

}  // namespace kiln::saving
