#pragma once
// The CUDA C++ source of a fused_elementwise node's kernel: one __global__ function that, per
// output element, loads each input as its access says, runs the program's instructions in
// registers of the compute type with the shared elementwise functors, and stores the last one.
// Host code only: it runs, and is tested, without a GPU.
//
// The kernel is extern "C" kFusedKernelName(n, out, in0, ..., index): n the output's element
// count, out and in<k> the data (bool as one byte, 0 or 1), and, when some input is strided, a
// KilnIndex<rank, num_strided> by value: rank dims followed by each strided input's rank
// strides, all 64-bit (FusedLayout::dims and ::strides).
#include <string>
#include <vector>

#include "kiln/framework/backends/cuda/fused_layout.h"
#include "kiln/framework/backends/cuda/nvrtc_compiler.h"
#include "kiln/framework/core/dtype.h"
#include "kiln/framework/graph/fused_program.h"

namespace kiln::cuda {

inline constexpr const char* kFusedKernelName = "kiln_fused_elementwise";

// What the kernel depends on besides the program; shapes only through the accesses and the
// index's rank, so one compiled kernel serves every batch size.
struct FusedSignature {
  std::vector<DType> input_dtypes;  // the program's compute dtype or bool, as on the CPU
  std::vector<InputAccess> access;
  int index_rank = 0;               // FusedLayout::dims.size()
  DType output_dtype = DType::f32;  // the compute dtype or bool
};

// The kernel as NVRTC compiles it: its text, the headers it includes (functor_headers.h) and
// its options. Throws kiln::Error for what the CPU kernel refuses too: a compute dtype other than
// float32 or float64, inputs or an output of another dtype, an op that is not elementwise.
CudaSource fused_kernel_source(const FusedProgram& program, const FusedSignature& signature);

}  // namespace kiln::cuda
