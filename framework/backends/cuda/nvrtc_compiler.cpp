#include "kiln/framework/backends/cuda/nvrtc_compiler.h"

#include <nvrtc.h>

#include <algorithm>
#include <iomanip>
#include <iterator>
#include <sstream>

#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

// The dialect the shared functors are written in (inline variables, if constexpr). NVRTC's
// math defaults are nvcc's (IEEE division and square root, no flush to zero, FMA contraction),
// so a fused kernel computes what the unfused CUDA kernels compute.
constexpr const char* kLanguageOption = "--std=c++17";

void check(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS)
    throw Error(detail::concat("NVRTC: ", call, " failed: ", nvrtcGetErrorString(result)));
}

// An nvrtcProgram, destroyed with its owner.
class Program {
 public:
  explicit Program(const CudaSource& source) {
    std::vector<const char*> names;
    std::vector<const char*> texts;
    for (const NvrtcHeader& header : source.headers) {
      names.push_back(header.name.c_str());
      texts.push_back(header.text.c_str());
    }
    check(nvrtcCreateProgram(&program_, source.text.c_str(), source.name.c_str(),
                             static_cast<int>(names.size()), texts.data(), names.data()),
          "nvrtcCreateProgram");
  }
  ~Program() { nvrtcDestroyProgram(&program_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  nvrtcProgram get() const { return program_; }

  std::string log() const {
    size_t size = 0;
    check(nvrtcGetProgramLogSize(program_, &size), "nvrtcGetProgramLogSize");
    std::string log(size, '\0');
    check(nvrtcGetProgramLog(program_, log.data()), "nvrtcGetProgramLog");
    while (!log.empty() && log.back() == '\0') log.pop_back();
    return log;
  }

 private:
  nvrtcProgram program_ = nullptr;
};

std::vector<int> supported_archs() {
  int count = 0;
  check(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<size_t>(count));
  check(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  std::sort(archs.begin(), archs.end());
  return archs;
}

std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return detail::concat("NVRTC ", major, '.', minor);
}

// NVRTC's log gives line numbers; generated sources are read with them beside each line.
std::string numbered(const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) out << std::setw(4) << n << "  " << line << '\n';
  return out.str();
}

}  // namespace

bool is_ptx_target(std::string_view target) {
  return target.starts_with("compute_");
}

std::string nvrtc_target(int arch) {
  const std::vector<int> archs = supported_archs();
  KILN_CHECK(!archs.empty(), nvrtc_version(), " reports no GPU architecture it compiles for");
  if (std::binary_search(archs.begin(), archs.end(), arch)) return "sm_" + std::to_string(arch);
  const auto newer = std::upper_bound(archs.begin(), archs.end(), arch);
  KILN_CHECK(newer != archs.begin(), nvrtc_version(), " compiles for sm_", archs.front(),
             " and newer GPUs, not for this sm_", arch, " one");
  return "compute_" + std::to_string(*std::prev(newer));
}

std::string nvrtc_configuration() {
  return detail::concat(nvrtc_version(), ' ', kLanguageOption);
}

GpuCode nvrtc_compile(const CudaSource& source, const std::string& target) {
  const Program program(source);
  const std::string arch_option = "--gpu-architecture=" + target;
  std::vector<const char*> options{arch_option.c_str(), kLanguageOption};
  for (const std::string& option : source.options) options.push_back(option.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(program.get(), static_cast<int>(options.size()), options.data());
  if (compiled != NVRTC_SUCCESS) {
    throw Error(detail::concat("NVRTC could not compile ", source.name, " for ", target, " (",
                               nvrtcGetErrorString(compiled), "):\n", program.log(),
                               "\nThe source:\n", numbered(source.text)));
  }
  GpuCode code{target, {}};
  size_t size = 0;
  if (is_ptx_target(target)) {
    check(nvrtcGetPTXSize(program.get(), &size), "nvrtcGetPTXSize");
    code.bytes.resize(size);
    check(nvrtcGetPTX(program.get(), code.bytes.data()), "nvrtcGetPTX");
  } else {
    check(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize");
    code.bytes.resize(size);
    check(nvrtcGetCUBIN(program.get(), code.bytes.data()), "nvrtcGetCUBIN");
  }
  return code;
}

}  // namespace kiln::cuda
