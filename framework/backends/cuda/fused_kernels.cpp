// CUDA kernel of fused_elementwise. Each program becomes CUDA C++ (fused_source.h), compiled by
// NVRTC for the GPU's architecture when a graph is planned (the code is kept on disk across
// processes, gpu_code_cache.h) and loaded once per process with the runtime's library API, which
// needs no link to the driver library. A planned step then only binds data and launches.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kiln/framework/backends/cpu/prepared_call.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/fused_layout.h"
#include "kiln/framework/backends/cuda/fused_source.h"
#include "kiln/framework/backends/cuda/gpu_code_cache.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/backends/cuda/nvrtc_compiler.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/graph/fused_program.h"

namespace kiln::cuda {
namespace {

// The most parameter bytes a kernel takes (CUDA 12.1 and later, every GPU CUDA 13 supports).
constexpr size_t kMaxParamBytes = 32764;

const FusedProgram& program_of(const KernelContext& c) {
  const auto* program = dynamic_cast<const FusedProgram*>(c.payload);
  KILN_CHECK(program != nullptr, "fused_elementwise: the node carries no fused program");
  return *program;
}

int compute_capability(int device) {
  int major = 0;
  int minor = 0;
  KILN_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  KILN_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return 10 * major + minor;
}

// Kernels loaded in this process, by target and source. A library loaded once serves every GPU
// of its architecture: the runtime loads it into each device's context as needed. Libraries stay
// loaded for the process's life, as the CUDA runtime may be gone when static destructors run.
class LoadedKernels {
 public:
  cudaKernel_t get(const CudaSource& source, const std::string& target, const char* name) {
    // Compiling under the lock: threads planning the same program compile it once.
    const std::lock_guard lock(mutex_);
    std::string key = target + '\n' + source.text;
    if (const auto found = kernels_.find(key); found != kernels_.end()) return found->second;
    const GpuCode code = gpu_code_cache().get(source, target);
    cudaLibrary_t library = nullptr;
    KILN_CUDA_CHECK(
        cudaLibraryLoadData(&library, code.bytes.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    cudaKernel_t kernel = nullptr;
    KILN_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, name));
    kernels_.emplace(std::move(key), kernel);
    return kernel;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, cudaKernel_t> kernels_;
};

LoadedKernels& loaded_kernels() {
  static LoadedKernels kernels;
  return kernels;
}

// A fused program bound to one step's shapes: its kernel and the index of its strided inputs,
// made once; run() binds the data and launches.
class FusedCall {
 public:
  explicit FusedCall(const KernelContext& c) : device_(c.output.device().index) {
    const FusedProgram& program = program_of(c);
    std::vector<Shape> shapes;
    FusedSignature signature;
    for (const Tensor& in : c.inputs) {
      shapes.push_back(in.shape());
      signature.input_dtypes.push_back(in.dtype());
    }
    const FusedLayout layout = fused_layout(shapes, c.output.shape());
    signature.access = layout.access;
    signature.index_rank = static_cast<int>(layout.dims.size());
    signature.output_dtype = c.output.dtype();
    index_ = layout.dims;
    for (const std::vector<int64_t>& strides : layout.strides)
      index_.insert(index_.end(), strides.begin(), strides.end());
    const size_t param_bytes = sizeof(int64_t) * (2 + c.inputs.size() + index_.size());
    KILN_CHECK(param_bytes <= kMaxParamBytes, "fused_elementwise: ", c.inputs.size(),
               " inputs need ", param_bytes, " bytes of kernel parameters, more than CUDA's ",
               kMaxParamBytes);
    kernel_ = loaded_kernels().get(fused_kernel_source(program, signature),
                                   nvrtc_target(compute_capability(device_)), kFusedKernelName);
  }

  void run(const KernelContext& c) {
    int64_t n = c.output.numel();
    if (n == 0) return;  // no grid of zero blocks
    void* out = c.output.raw_data();
    std::vector<const void*> inputs;
    for (const Tensor& in : c.inputs) inputs.push_back(in.raw_data());
    // The kernel's parameters in order: n, out, each input, and the index when it has one.
    std::vector<void*> args{&n, &out};
    for (const void*& in : inputs) args.push_back(&in);
    if (!index_.empty()) args.push_back(index_.data());
    const auto blocks = grid_for(n);
    const DeviceGuard guard(device_);
    KILN_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(blocks),
                                     dim3(kThreads), args.data(), 0, current_stream(device_)));
  }

 private:
  int device_;
  cudaKernel_t kernel_ = nullptr;
  std::vector<int64_t> index_;  // KilnIndex's dims, then each strided input's strides
};

void fused_elementwise_kernel(const KernelContext& c) {
  FusedCall(c).run(c);
}

// Compiles when the graph is planned, not at its first run.
std::unique_ptr<PreparedKernel> prepare_fused_elementwise(const KernelContext& c) {
  return std::make_unique<cpu::PreparedCall<FusedCall>>(c);
}

}  // namespace

void register_fused_kernels(OpTable& t) {
  t.set_kernel(OpId::fused_elementwise, DeviceType::cuda, fused_elementwise_kernel);
  t.set_prepare(OpId::fused_elementwise, DeviceType::cuda, prepare_fused_elementwise);
}

}  // namespace kiln::cuda
