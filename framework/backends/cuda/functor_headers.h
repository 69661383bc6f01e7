#pragma once
// The headers a fused kernel's source includes, as NVRTC is given them. The generated code
// calls the elementwise functors the CPU and the CUDA kernels share, compiled from their own
// header's text, so fused and unfused results cannot drift apart; NVRTC has no C++ standard
// library, so the few standard and kiln headers that header includes come as small stand-ins.
#include <string_view>
#include <vector>

#include "kiln/framework/backends/cuda/nvrtc_compiler.h"

namespace kiln::cuda {

std::vector<NvrtcHeader> fused_kernel_headers();

// The text of framework/ops/elementwise_functors.h, embedded at build time by
// cmake/embed_text.cmake.
std::string_view elementwise_functors_text();

}  // namespace kiln::cuda
