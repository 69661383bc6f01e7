#pragma once
// CUDA C++ compiled to GPU code at run time with NVRTC, for the kernels kiln writes per graph
// (fused elementwise programs). NVRTC needs no GPU, so this runs and is tested anywhere the
// CUDA toolkit's libnvrtc is.
#include <string>
#include <string_view>
#include <vector>

namespace kiln::cuda {

// A header the source #includes by `name`, given as text: NVRTC reads no files.
struct NvrtcHeader {
  std::string name;
  std::string text;
};

struct CudaSource {
  std::string name;  // names the source in NVRTC's messages
  std::string text;
  std::vector<NvrtcHeader> headers;
  std::vector<std::string> options;  // beyond the target and the language (math flags)
};

// CUBIN for one architecture ("sm_90"), or PTX ("compute_90", NUL-terminated) that the driver
// compiles for its GPU when the code is loaded.
struct GpuCode {
  std::string target;
  std::string bytes;
};

bool is_ptx_target(std::string_view target);

// What NVRTC compiles for on a GPU of compute capability `arch` (10 * major + minor): CUBIN for
// that architecture when this NVRTC knows it, else PTX for the newest architecture it knows
// below it. Throws kiln::Error when it knows none at or below it.
std::string nvrtc_target(int arch);

// NVRTC's version and the language option every compile passes: with the source (its headers
// and options) and the target, what the compiled code depends on.
std::string nvrtc_configuration();

// Throws kiln::Error carrying NVRTC's log and the numbered source when the source does not
// compile.
GpuCode nvrtc_compile(const CudaSource& source, const std::string& target);

}  // namespace kiln::cuda
