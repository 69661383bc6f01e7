#include "kiln/framework/backends/cuda/gpu_code_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "kiln/framework/core/log.h"

namespace kiln::cuda {
namespace {

namespace fs = std::filesystem;

// A file starts with the magic line, then FileHeader (native byte order: the cache is one
// machine's), the request and the code.
constexpr std::string_view kMagic = "kiln gpu code 1\n";

struct FileHeader {
  uint64_t request_size;
  uint64_t code_size;
  uint64_t code_checksum;
};

// FNV-1a: names the files and checks their code; the request stored in a file settles whether
// it is the one wanted.
uint64_t fnv1a(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

// Everything the compiled code depends on, each part prefixed with its length and each list
// with its count, so that no two different requests read the same.
std::string request_of(const CudaSource& source, const std::string& target) {
  std::string request;
  auto part = [&](std::string_view text) {
    request.append(std::to_string(text.size())).append(":").append(text).append("\n");
  };
  part(nvrtc_configuration());
  part(target);
  part(std::to_string(source.headers.size()));
  for (const NvrtcHeader& header : source.headers) {
    part(header.name);
    part(header.text);
  }
  part(std::to_string(source.options.size()));
  for (const std::string& option : source.options) part(option);
  part(source.text);
  return request;
}

std::string file_name(const std::string& request, const std::string& target) {
  std::ostringstream name;
  name << std::hex << std::setw(16) << std::setfill('0') << fnv1a(request) << '.' << target;
  return name.str();
}

std::optional<std::string> read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(bytes).str();
}

// The code `file` holds for `request`; nullopt when there is no such file, or it holds another
// request, or it is truncated or corrupt.
std::optional<std::string> stored_code(const fs::path& file, const std::string& request) {
  const std::optional<std::string> bytes = read_file(file);
  if (!bytes || !bytes->starts_with(kMagic)) return std::nullopt;
  std::string_view rest(*bytes);
  rest.remove_prefix(kMagic.size());
  FileHeader header{};
  if (rest.size() < sizeof header) return std::nullopt;
  std::memcpy(&header, rest.data(), sizeof header);
  rest.remove_prefix(sizeof header);
  if (header.request_size != request.size() || rest.size() < request.size() ||
      rest.size() - request.size() != header.code_size || !rest.starts_with(request))
    return std::nullopt;
  const std::string_view code = rest.substr(request.size());
  if (fnv1a(code) != header.code_checksum) return std::nullopt;
  return std::string(code);
}

}  // namespace

GpuCodeCache::GpuCodeCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

GpuCode GpuCodeCache::get(const CudaSource& source, const std::string& target) {
  const std::string request = request_of(source, target);
  const fs::path file = dir_.empty() ? fs::path() : dir_ / file_name(request, target);
  if (!file.empty()) {
    if (std::optional<std::string> code = stored_code(file, request)) {
      ++hits_;
      return {target, std::move(*code)};
    }
  }
  GpuCode code = nvrtc_compile(source, target);
  ++compiles_;
  if (!file.empty()) store(file, request, code);
  return code;
}

std::filesystem::path GpuCodeCache::file_for(const CudaSource& source,
                                             const std::string& target) const {
  return dir_ / file_name(request_of(source, target), target);
}

void GpuCodeCache::store(const fs::path& file, const std::string& request, const GpuCode& code) {
  const fs::path temporary =
      file.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(temporaries_++);
  std::error_code error;
  fs::create_directories(dir_, error);
  if (!error) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    const FileHeader header{request.size(), code.bytes.size(), fnv1a(code.bytes)};
    out.write(kMagic.data(), static_cast<std::streamsize>(kMagic.size()));
    out.write(reinterpret_cast<const char*>(&header), sizeof header);
    out.write(request.data(), static_cast<std::streamsize>(request.size()));
    out.write(code.bytes.data(), static_cast<std::streamsize>(code.bytes.size()));
    out.close();
    if (!out) error = std::make_error_code(std::errc::io_error);
  }
  if (!error) fs::rename(temporary, file, error);
  if (!error) return;
  std::error_code ignored;
  fs::remove(temporary, ignored);
  if (!warned_.exchange(true)) {
    log(LogLevel::warning, "cannot keep compiled CUDA kernels in ", dir_.string(), " (",
        error.message(), "): they compile again in every process; KILN_CUDA_CACHE_DIR names ",
        "another directory");
  }
}

std::filesystem::path default_gpu_code_cache_dir() {
  auto env = [](const char* name) -> std::string_view {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
  };
  if (const std::string_view dir = env("KILN_CUDA_CACHE_DIR"); !dir.empty()) return dir;
  // The XDG spec tells programs to ignore a relative XDG_CACHE_HOME.
  if (const fs::path xdg = env("XDG_CACHE_HOME"); xdg.is_absolute()) return xdg / "kiln" / "cuda";
  if (const std::string_view home = env("HOME"); !home.empty())
    return fs::path(home) / ".cache" / "kiln" / "cuda";
  return {};
}

GpuCodeCache& gpu_code_cache() {
  static GpuCodeCache cache(default_gpu_code_cache_dir());
  return cache;
}

}  // namespace kiln::cuda
