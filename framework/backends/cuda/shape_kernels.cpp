// Data-movement kernels on CUDA: framework/backends/copy_kernels.h over cuda::strided_copy.
#include "kiln/framework/backends/copy_kernels.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/fill.h"
#include "kiln/framework/backends/cuda/strided_copy.h"

namespace kiln::cuda {
namespace {

struct CudaMover {
  static void copy(const Tensor& dst, const View& d, const Tensor& src, const View& s,
                   const std::vector<int64_t>& dims, size_t elem_size) {
    strided_copy({address(dst, d), d.strides}, {address(src, s), s.strides}, dims, elem_size,
                 dst.device().index);
  }
  static void fill(const Tensor& t, double value) { cuda::fill(t, value); }
};

}  // namespace

void register_shape_kernels(OpTable& t) {
  CopyKernels<CudaMover>::register_for(t, DeviceType::cuda);
}

}  // namespace kiln::cuda
