// The reductions on CUDA over any axes, without first moving them together: each block reduces
// one part of one output's elements (blocks stride over the parts), its threads striding over
// them and then combining in shared memory. An output is one part unless the outputs are too
// few to fill the GPU and each is long (a loss, a gradient's norm or finiteness check): then
// its elements split into parts of kPartLength, reduced into a row of partial results that a
// second pass reduces. They accumulate in the compute type and combine as the CPU's do (max and
// min keep a NaN). argmax/argmin walk their one axis per output in order, as the CPU, so ties
// go to the first index on both.
#include <algorithm>
#include <bit>
#include <limits>
#include <vector>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/fill.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/backends/cuda/strided_index.cuh"
#include "kiln/framework/core/convert.h"

namespace kiln::cuda {
namespace {

constexpr int kMaxThreads = 256;

struct Sum {
  template <typename C>
  static C init() {
    return C(0);
  }
  template <typename C>
  __device__ static C combine(C a, C b) {
    return a + b;
  }
};
struct Prod {
  template <typename C>
  static C init() {
    return C(1);
  }
  template <typename C>
  __device__ static C combine(C a, C b) {
    return a * b;
  }
};
struct Max {
  template <typename C>
  static C init() {
    if constexpr (std::numeric_limits<C>::has_infinity) return -std::numeric_limits<C>::infinity();
    return std::numeric_limits<C>::lowest();
  }
  template <typename C>
  __device__ static C combine(C a, C b) {
    return (a >= b || a != a) ? a : b;
  }
};
struct Min {
  template <typename C>
  static C init() {
    if constexpr (std::numeric_limits<C>::has_infinity) return std::numeric_limits<C>::infinity();
    return std::numeric_limits<C>::max();
  }
  template <typename C>
  __device__ static C combine(C a, C b) {
    return (a <= b || a != a) ? a : b;
  }
};

// Outputs fewer than this, each longer than kPartLength, are reduced in parts.
constexpr int64_t kFewOutputs = 128;
constexpr int64_t kPartLength = 8192;

// Output q is part q % parts of output q / parts: the elements [part * part_length, ...) of
// those `kept` and `reduced_index` address (the outputs' input offsets, and the offsets of one
// output's elements). blockDim.x is a power of two; `init` comes from the host.
template <typename Op, typename In, typename Out, typename C>
__global__ void reduce_kernel(Out* out, const In* in, int64_t outputs, int64_t parts,
                              int64_t part_length, int64_t reduced,
                              const __grid_constant__ StridedIndex<1> kept,
                              const __grid_constant__ StridedIndex<1> reduced_index, C init) {
  __shared__ C partial[kMaxThreads];
  for (int64_t q = blockIdx.x; q < outputs * parts; q += gridDim.x) {
    int64_t base[1];
    kept.offsets(q / parts, base);
    const int64_t begin = (q % parts) * part_length;
    const int64_t end = begin + part_length < reduced ? begin + part_length : reduced;
    C acc = init;
    for (int64_t r = begin + threadIdx.x; r < end; r += blockDim.x) {
      int64_t off[1];
      reduced_index.offsets(r, off);
      acc = Op::combine(acc, convert_value<C>(in[base[0] + off[0]]));
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
      if (threadIdx.x < s)
        partial[threadIdx.x] = Op::combine(partial[threadIdx.x], partial[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) out[q] = convert_value<Out>(partial[0]);
    __syncthreads();  // partial[0] is read before the next part overwrites it
  }
}

// Threads for reducing `length` elements a block: a power of two in [32, kMaxThreads].
int threads_for(int64_t length) {
  return static_cast<int>(
      std::clamp<uint64_t>(std::bit_ceil(static_cast<uint64_t>(length)), 32, kMaxThreads));
}

template <typename Op>
void reduce(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const std::vector<int64_t> axes = c.attrs.get(attr::axes);
  // Split x's dims, outermost first, into kept ones (the output's order) and reduced ones.
  const std::vector<int64_t> strides = x.shape().strides();
  StridedIndex<1> kept, reduced_index;
  int64_t reduced = 1;
  for (int i = 0; i < x.rank(); ++i) {
    const int64_t dim = x.dim(i);
    const int64_t stride = strides[static_cast<size_t>(i)];
    if (std::find(axes.begin(), axes.end(), i) != axes.end()) {
      reduced_index.append(dim, {stride});
      reduced *= dim;
    } else {
      kept.append(dim, {stride});
    }
  }
  const int64_t outputs = c.output.numel();
  if (outputs == 0) return;
  const int64_t parts =
      outputs < kFewOutputs && reduced > kPartLength
          ? std::min<int64_t>((reduced + kPartLength - 1) / kPartLength, kMaxThreads)
          : 1;
  const int64_t part_length = (reduced + parts - 1) / parts;
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device);
  const auto blocks = [](int64_t n) { return static_cast<unsigned>(std::min(n, kMaxBlocks)); };
  visit_dtypes<kNumericDTypes>(x.dtype(), "CUDA kernel", [&]<typename T>() {
    using C = compute_t<T>;
    T* out = static_cast<T*>(c.output.raw_data());
    if (parts == 1) {
      reduce_kernel<Op><<<blocks(outputs), threads_for(reduced), 0, stream>>>(
          out, data_of<T>(x), outputs, 1, reduced, reduced, kept, reduced_index,
          Op::template init<C>());
      return;
    }
    // Each output's parts into a row of partial results, then each row into its output.
    const Tensor partials = Tensor::empty({outputs * parts}, dtype_of<C>(), c.output.device());
    C* row = static_cast<C*>(partials.raw_data());
    reduce_kernel<Op><<<blocks(outputs * parts), kMaxThreads, 0, stream>>>(
        row, data_of<T>(x), outputs, parts, part_length, reduced, kept, reduced_index,
        Op::template init<C>());
    StridedIndex<1> rows, along_row;
    rows.append(outputs, {parts});
    along_row.append(parts, {1});
    reduce_kernel<Op><<<blocks(outputs), threads_for(parts), 0, stream>>>(
        out, static_cast<const C*>(row), outputs, 1, parts, parts, rows, along_row,
        Op::template init<C>());
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

// One thread per output: the axis is viewed as (outer, reduced, inner).
template <bool kIsMax, typename T>
__global__ void arg_kernel(int64_t* out, const T* in, int64_t outer_inner, int64_t reduced,
                           int64_t inner) {
  using C = compute_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < outer_inner;
       k += step) {
    const T* p = in + (k / inner) * reduced * inner + k % inner;
    int64_t best = 0;
    C best_v = convert_value<C>(p[0]);
    for (int64_t r = 1; r < reduced; ++r) {
      const C v = convert_value<C>(p[r * inner]);
      if (kIsMax ? v > best_v : v < best_v) {
        best_v = v;
        best = r;
      }
    }
    out[k] = best;
  }
}

template <bool kIsMax>
void arg_reduce(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const auto axis = static_cast<int>(c.attrs.get(attr::axis));
  int64_t inner = 1;
  for (int i = axis + 1; i < x.rank(); ++i) inner *= x.dim(i);
  const int64_t reduced = x.dim(axis);
  KILN_CHECK(reduced > 0, "kiln::ops::", kIsMax ? "argmax" : "argmin",
             ": cannot reduce an empty axis");
  const int64_t n = c.output.numel();
  if (n == 0) return;
  const auto blocks = grid_for(n);
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  visit_dtypes<kNumericDTypes>(x.dtype(), "CUDA kernel", [&]<typename T>() {
    arg_kernel<kIsMax><<<blocks, kThreads, 0, current_stream(device)>>>(
        static_cast<int64_t*>(c.output.raw_data()), data_of<T>(x), n, reduced, inner);
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

// The element count over the axes, known from the input's shape (its data is not read).
void size_of(const KernelContext& c) {
  int64_t n = 1;
  for (const int64_t axis : c.attrs.get(attr::axes)) n *= c.inputs[0].dim(static_cast<int>(axis));
  fill(c.output, static_cast<double>(n));
}

}  // namespace

void register_reduction_kernels(OpTable& t) {
  constexpr auto gpu = DeviceType::cuda;
  t.set_kernel(OpId::reduce_sum, gpu, reduce<Sum>);
  t.set_kernel(OpId::reduce_prod, gpu, reduce<Prod>);
  t.set_kernel(OpId::reduce_max, gpu, reduce<Max>);
  t.set_kernel(OpId::reduce_min, gpu, reduce<Min>);
  t.set_kernel(OpId::argmax, gpu, arg_reduce<true>);
  t.set_kernel(OpId::argmin, gpu, arg_reduce<false>);
  t.set_kernel(OpId::size_of, gpu, size_of);
}

}  // namespace kiln::cuda
