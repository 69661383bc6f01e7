#include "kiln/training/saving/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

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

void write_file_atomically(const std::string& path, std::string_view bytes) {
  write_atomically(path, [&](const std::string& temporary) {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    KILN_CHECK(fd >= 0, "cannot create ", temporary, ": ", std::strerror(errno));
    size_t written = 0;
    while (written < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int saved = errno;
        ::close(fd);
        throw Error(detail::concat("cannot write ", temporary, ": ", std::strerror(saved)));
      }
      written += static_cast<size_t>(n);
    }
    KILN_CHECK(::close(fd) == 0, "cannot write ", temporary, ": ", std::strerror(errno));
  });
}

}  // namespace kiln::saving
