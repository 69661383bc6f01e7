#include "kiln/datasets/idx_file.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {
    KILN_CHECK(file_ != nullptr, "cannot open ", path);
  }
  ~GzFile() { gzclose(file_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  void read(void* dst, size_t bytes) {
    auto* out = static_cast<char*>(dst);
    while (bytes > 0) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes, 1u << 30));
      const int got = gzread(file_, out, chunk);
      KILN_CHECK(got > 0, path_, ": truncated or corrupt IDX file");
      out += got;
      bytes -= static_cast<size_t>(got);
    }
  }

 private:
  std::string path_;
  gzFile file_;
};

uint32_t big_endian(const uint8_t* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

}  // namespace

IdxArray read_idx_u8(const std::string& path) {
  KILN_CHECK(std::filesystem::exists(path), "dataset file not found: ", path);
  GzFile file(path);  // gzread also reads uncompressed files transparently
  uint8_t magic[4];
  file.read(magic, 4);
  KILN_CHECK(magic[0] == 0 && magic[1] == 0 && magic[2] == 0x08, path,
             ": not an unsigned-byte IDX file");
  IdxArray out;
  size_t count = 1;
  for (int i = 0; i < magic[3]; ++i) {
    uint8_t b[4];
    file.read(b, 4);
    out.dims.push_back(big_endian(b));
    KILN_CHECK(!__builtin_mul_overflow(count, size_t{big_endian(b)}, &count), path,
               ": corrupt IDX header (its dims multiply past 2^64)");
  }
  // Grown as the data arrives, so a corrupt header's count ends in "truncated", not in an
  // allocation of whatever it claims.
  constexpr size_t kChunk = size_t{1} << 24;
  for (size_t done = 0; done < count;) {
    const size_t n = std::min(kChunk, count - done);
    out.data.resize(done + n);
    file.read(out.data.data() + done, n);
    done += n;
  }
  return out;
}

}  // namespace kiln::datasets
