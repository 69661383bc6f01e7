// Data-movement kernels on the CPU: framework/backends/copy_kernels.h over cpu::strided_copy.
#include "kiln/framework/backends/copy_kernels.h"
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/elementwise_loops.h"
#include "kiln/framework/backends/cpu/strided_copy.h"
#include "kiln/framework/backends/cpu/transpose.h"

namespace kiln::cpu {
namespace {

struct CpuMover {
  static void copy(const Tensor& dst, const View& d, const Tensor& src, const View& s,
                   const std::vector<int64_t>& dims, size_t elem_size) {
    strided_copy({address(dst, d), d.strides}, {address(src, s), s.strides}, dims, elem_size);
  }
  static void fill(const Tensor& t, double value) {
    visit_dtype(t.dtype(), [&]<typename T>() {
      T* p = static_cast<T*>(t.raw_data());
      const T v = convert_value<T>(value);
      parallel_for(t.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) p[i] = v;
      });
    });
  }
};

}  // namespace

void transpose_copy(const Tensor& in, const Tensor& out, const std::vector<int64_t>& perm) {
  const auto in_strides = in.shape().strides();
  std::vector<int64_t> src_strides;
  for (int64_t p : perm) src_strides.push_back(in_strides[static_cast<size_t>(p)]);
  strided_copy({out.raw_data(), out.shape().strides()}, {in.raw_data(), src_strides},
               out.shape().dims(), dtype_size(in.dtype()));
}

void register_shape_kernels(OpTable& t) {
  CopyKernels<CpuMover>::register_for(t, DeviceType::cpu);
}

}  // namespace kiln::cpu
