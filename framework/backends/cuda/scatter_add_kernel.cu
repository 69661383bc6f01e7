// scatter_add on CUDA: out = base, then out[o, indices[j], i] += updates[o, j, i] for each j in
// order. The (index, j) pairs are sorted by index with CUB's radix sort, which is stable, so
// each run of one index lists its j in order, and each row in range learns where its run begins
// and ends. A thread per output element then adds its run's updates one by one, rounding as the
// CPU does after each: the CPU's bits, no atomics. The adds must stay in order, but the loads
// need not: each thread issues a block of them before adding, so a run of thousands (an
// Embedding's gradient over a small vocabulary) waits for memory once a block, not once an add.
// An index outside [0, axis) adds nothing, as TensorFlow's GPU kernel.
#include <algorithm>
#include <climits>

#include <cub/device/device_radix_sort.cuh>

#include "kiln/framework/backends/axis_split.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/fill.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cuda {
namespace {

// Where each row's run lies in the sorted keys: [begin[row], end[row]), both -1 for a row that
// no index names. A thread per key marks the run it starts or ends.
template <typename I>
__global__ void run_bounds_kernel(const I* keys, int64_t n, int64_t axis, int64_t* begin,
                                  int64_t* end) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < n; s += step) {
    const auto row = static_cast<int64_t>(keys[s]);
    if (row < 0 || row >= axis) continue;
    if (s == 0 || keys[s - 1] != keys[s]) begin[row] = s;
    if (s + 1 == n || keys[s + 1] != keys[s]) end[row] = s + 1;
  }
}

// Updates loaded ahead of their adds.
inline constexpr int kLoadsInFlight = 16;

// positions: the j of each sorted key. A thread per output element (o, row, i).
template <typename T>
__global__ void run_sum_kernel(T* out, const T* updates, const int64_t* positions,
                               const int64_t* begin, const int64_t* end, AxisSplit p, int64_t n) {
  using C = compute_t<T>;
  const int64_t total = p.outer * p.axis * p.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const int64_t i = k % p.inner;
    const int64_t row = (k / p.inner) % p.axis;
    const int64_t o = k / (p.inner * p.axis);
    const int64_t first = begin[row];
    if (first < 0) continue;
    const int64_t last = end[row];
    const T* slice = updates + o * n * p.inner + i;
    const auto add = [](T sum, T u) {
      return convert_value<T>(convert_value<C>(sum) + convert_value<C>(u));
    };
    T sum = out[k];
    int64_t e = first;
    for (; e + kLoadsInFlight <= last; e += kLoadsInFlight) {
      T loaded[kLoadsInFlight];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) loaded[u] = slice[positions[e + u] * p.inner];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) sum = add(sum, loaded[u]);
    }
    for (; e < last; ++e) sum = add(sum, slice[positions[e] * p.inner]);
    out[k] = sum;
  }
}

// The indices sorted, with each one's position j (stable: equal indices keep j's order).
template <typename I>
void sort_by_index(const Tensor& indices, const Tensor& keys, const Tensor& positions,
                   cudaStream_t stream) {
  const int64_t n = indices.numel();
  KILN_CHECK(n <= INT_MAX, "kiln::ops::scatter_add on CUDA: ", n, " indices exceed ", INT_MAX);
  const Tensor order = Tensor::empty({n}, DType::i64, indices.device());
  iota(order);
  const auto sort = [&](void* scratch, size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(
        scratch, bytes, data_of<I>(indices), static_cast<I*>(keys.raw_data()),
        data_of<int64_t>(order), static_cast<int64_t*>(positions.raw_data()), static_cast<int>(n),
        0, static_cast<int>(sizeof(I) * 8), stream);
  };
  size_t bytes = 0;
  KILN_CUDA_CHECK(sort(nullptr, bytes));
  const Tensor scratch = Tensor::empty({static_cast<int64_t>(std::max<size_t>(bytes, 1))},
                                       DType::u8, indices.device());
  KILN_CUDA_CHECK(sort(scratch.raw_data(), bytes));
}

void scatter_add(const KernelContext& c) {
  const Tensor& base = c.inputs[0];
  const Tensor& indices = c.inputs[1];
  const Tensor& updates = c.inputs[2];
  const AxisSplit p = split_at(base.shape(), static_cast<int>(c.attrs.get(attr::axis)));
  const int64_t n = indices.numel();
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device);
  KILN_CUDA_CHECK(cudaMemcpyAsync(c.output.raw_data(), base.raw_data(), c.output.nbytes(),
                                  cudaMemcpyDeviceToDevice, stream));
  if (c.output.numel() == 0 || n == 0) return;
  const Tensor keys = Tensor::empty({n}, indices.dtype(), indices.device());
  const Tensor positions = Tensor::empty({n}, DType::i64, indices.device());
  // begin then end, each p.axis long; all-ones bytes read as -1, "no run".
  const Tensor bounds = Tensor::empty({2, p.axis}, DType::i64, indices.device());
  KILN_CUDA_CHECK(cudaMemsetAsync(bounds.raw_data(), 0xff, bounds.nbytes(), stream));
  int64_t* begin = static_cast<int64_t*>(bounds.raw_data());
  int64_t* end = begin + p.axis;
  visit_dtypes<kIndexDTypes>(indices.dtype(), "scatter_add indices", [&]<typename I>() {
    sort_by_index<I>(indices, keys, positions, stream);
    run_bounds_kernel<<<grid_for(n), kThreads, 0, stream>>>(data_of<I>(keys), n, p.axis, begin,
                                                            end);
  });
  visit_dtypes<kNumericDTypes>(base.dtype(), "CUDA kernel", [&]<typename T>() {
    run_sum_kernel<<<grid_for(c.output.numel()), kThreads, 0, stream>>>(
        static_cast<T*>(c.output.raw_data()), data_of<T>(updates), data_of<int64_t>(positions),
        begin, end, p, n);
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void register_scatter_add_kernel(OpTable& t) {
  t.set_kernel(OpId::scatter_add, DeviceType::cuda, scatter_add);
}

}  // namespace kiln::cuda
