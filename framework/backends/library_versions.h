#pragma once
// The versions of the libraries kiln was built against and of those the process actually loaded:
// on a machine kiln was not built on (a GPU machine whose cuDNN, cuBLAS and NCCL come from
// elsewhere), a library of another major version is the first suspect when a kernel fails.
// `kiln version` prints them.
#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct LibraryVersion {
  int major = 0, minor = 0, patch = 0;
  std::string to_string() const;
  auto operator<=>(const LibraryVersion&) const = default;
};

struct LoadedLibrary {
  std::string name;                      // "oneDNN", "cuDNN", ...
  std::optional<LibraryVersion> built;   // none: nothing to build against (the driver)
  std::optional<LibraryVersion> loaded;  // none: not loaded (no driver, say)
  // A major version other than the built one's: the library's interface may differ.
  bool mismatched() const;
};

// oneDNN, and in a build with CUDA the driver, the CUDA runtime, cuBLAS, cuDNN, NVRTC and NCCL.
std::vector<LoadedLibrary> library_versions();

namespace detail {
// The CUDA half of library_versions (empty without CUDA).
std::vector<LoadedLibrary> cuda_library_versions();
}  // namespace detail

}  // namespace kiln
