// reduce_sum on CUDA over any axes, without first moving them together: each block sums the
// elements of one output (blocks stride over outputs), its threads striding over the reduced
// elements and then combining in shared memory. Sums accumulate in the compute type, as on the
// CPU. One block per output leaves a full reduction of a large tensor to one SM, which is fine
// for losses and the gradients of broadcasting; a two-pass kernel can come when it shows up.
#include <algorithm>
#include <bit>
#include <vector>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/strided_index.cuh"
#include "kiln/framework/core/convert.h"

namespace kiln::cuda {
namespace {

constexpr int kMaxThreads = 256;

// `kept` walks the outputs' input offsets, `summed` the offsets of one output's elements;
// blockDim.x is a power of two.
template <typename T>
__global__ void sum_kernel(T* out, const T* in, int64_t outputs, int64_t reduced,
                           const __grid_constant__ StridedIndex<1> kept,
                           const __grid_constant__ StridedIndex<1> summed) {
  using C = compute_t<T>;
  __shared__ C partial[kMaxThreads];
  for (int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
    int64_t base[1];
    kept.offsets(o, base);
    C acc = C(0);
    for (int64_t r = threadIdx.x; r < reduced; r += blockDim.x) {
      int64_t off[1];
      summed.offsets(r, off);
      acc += convert_value<C>(in[base[0] + off[0]]);
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[o] = convert_value<T>(partial[0]);
    __syncthreads();  // partial[0] is read before the next output overwrites it
  }
}

void reduce_sum_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const std::vector<int64_t> axes = c.attrs.get_ints("axes");
  // Split x's dims, outermost first, into kept ones (the output's order) and summed ones.
  const std::vector<int64_t> strides = x.shape().strides();
  StridedIndex<1> kept, summed;
  int64_t reduced = 1;
  for (int i = 0; i < x.rank(); ++i) {
    const int64_t dim = x.dim(i);
    const int64_t stride = strides[static_cast<size_t>(i)];
    if (std::find(axes.begin(), axes.end(), i) != axes.end()) {
      summed.append(dim, {stride});
      reduced *= dim;
    } else {
      kept.append(dim, {stride});
    }
  }
  const int64_t outputs = c.output.numel();
  const int threads = static_cast<int>(
      std::clamp<uint64_t>(std::bit_ceil(static_cast<uint64_t>(reduced)), 32, kMaxThreads));
  const auto blocks = static_cast<unsigned>(std::min<int64_t>(outputs, 1 << 16));
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  visit_dtypes<kNumericDTypes>(x.dtype(), "CUDA kernel", [&]<typename T>() {
    sum_kernel<<<blocks, threads, 0, current_stream(device)>>>(
        static_cast<T*>(c.output.raw_data()), data_of<T>(x), outputs, reduced, kept, summed);
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void register_reduction_kernels(OpTable& t) {
  t.set_kernel(OpId::reduce_sum, DeviceType::cuda, reduce_sum_kernel);
}

}  // namespace kiln::cuda
