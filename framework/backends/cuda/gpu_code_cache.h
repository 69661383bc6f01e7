#pragma once
// GPU code compiled by NVRTC, kept on disk so that a process does not compile again what an
// earlier one did: a model's fused programs compile once per machine, not once per run.
//
// A cache file holds the whole request it was compiled from (NVRTC's configuration, target,
// headers and source) and a checksum of the code, and a lookup compares both: a hash collision,
// a stale, truncated or corrupt file costs a compile, never a wrong kernel. Files are written to
// a temporary name and renamed into place, so concurrent processes never read half a file.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

#include "kiln/framework/backends/cuda/nvrtc_compiler.h"

namespace kiln::cuda {

class GpuCodeCache {
 public:
  // Files go to `dir`, created on first store; with an empty dir nothing is kept on disk.
  explicit GpuCodeCache(std::filesystem::path dir);

  // `source` compiled for `target`: read from its file when that holds exactly this request,
  // else compiled and stored. Failing to store costs a warning, not an error.
  GpuCode get(const CudaSource& source, const std::string& target);

  // The file that holds (or will hold) `source` compiled for `target`.
  std::filesystem::path file_for(const CudaSource& source, const std::string& target) const;

  const std::filesystem::path& dir() const { return dir_; }
  int64_t hits() const { return hits_; }          // gets answered from a file
  int64_t compiles() const { return compiles_; }  // gets that ran NVRTC

 private:
  void store(const std::filesystem::path& file, const std::string& request, const GpuCode& code);

  std::filesystem::path dir_;
  std::atomic<int64_t> hits_{0};
  std::atomic<int64_t> compiles_{0};
  std::atomic<int64_t> temporaries_{0};  // makes each temporary file name unique
  std::atomic<bool> warned_{false};      // one warning per cache, not one per program
};

// KILN_CUDA_CACHE_DIR when set; else $XDG_CACHE_HOME/kiln/cuda; else ~/.cache/kiln/cuda; empty
// (no disk cache) when neither XDG_CACHE_HOME nor HOME is set.
std::filesystem::path default_gpu_code_cache_dir();

// The process's cache, in default_gpu_code_cache_dir() as the environment named it at first use.
GpuCodeCache& gpu_code_cache();

}  // namespace kiln::cuda
