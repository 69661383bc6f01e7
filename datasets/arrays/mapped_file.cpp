#include "kiln/datasets/arrays/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {

MappedFile::MappedFile(std::string path) : path_(std::move(path)) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  KILN_CHECK(fd >= 0, "cannot open ", path_, ": ", std::strerror(errno));
  struct stat st {};
  const bool sized = ::fstat(fd, &st) == 0;
  const int stat_errno = errno;
  if (sized && st.st_size > 0) {
    size_ = static_cast<size_t>(st.st_size);
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int map_errno = errno;
    ::close(fd);
    KILN_CHECK(mapped != MAP_FAILED, "cannot map ", path_, ": ", std::strerror(map_errno));
    data_ = static_cast<const char*>(mapped);
    return;
  }
  ::close(fd);
  KILN_CHECK(sized, "cannot read the size of ", path_, ": ", std::strerror(stat_errno));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace kiln::datasets
