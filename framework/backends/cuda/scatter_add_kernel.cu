// scatter_add on CUDA: out = base, then out[o, indices[j], i] += updates[o, j, i] for each j in
// order. The (index, j) pairs are sorted by index with CUB's radix sort, which is stable, so
// each run of one index lists its j in order; a thread per (outer slice, run, column) adds its
// run's updates one by one, rounding as the CPU does after each: the CPU's bits, no atomics,
// and every column of every row touched in parallel (an Embedding's gradient over a batch of
// tokens takes one pass, not one thread per column walking every token). An index outside
// [0, axis) adds nothing, as TensorFlow's GPU kernel.
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

// keys: the indices sorted; positions: their j, in order within each run of one index.
template <typename T, typename I>
__global__ void run_sum_kernel(T* out, const T* updates, const I* keys, const int64_t* positions,
                               AxisSplit p, int64_t n) {
  using C = compute_t<T>;
  const int64_t total = p.outer * n * p.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const int64_t i = k % p.inner;
    const int64_t s = (k / p.inner) % n;
    const int64_t o = k / (p.inner * n);
    if (s > 0 && keys[s - 1] == keys[s]) continue;  // inside a run: its first thread adds it
    const auto row = static_cast<int64_t>(keys[s]);
    if (row < 0 || row >= p.axis) continue;
    T& d = out[(o * p.axis + row) * p.inner + i];
    T sum = d;
    for (int64_t e = s; e < n && keys[e] == keys[s]; ++e)
      sum = convert_value<T>(convert_value<C>(sum) +
                             convert_value<C>(updates[(o * n + positions[e]) * p.inner + i]));
    d = sum;
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
  if (p.outer * p.inner == 0 || n == 0) return;
  const Tensor keys = Tensor::empty({n}, indices.dtype(), indices.device());
  const Tensor positions = Tensor::empty({n}, DType::i64, indices.device());
  visit_dtypes<kIndexDTypes>(indices.dtype(), "scatter_add indices", [&]<typename I>() {
    sort_by_index<I>(indices, keys, positions, stream);
    visit_dtypes<kNumericDTypes>(base.dtype(), "CUDA kernel", [&]<typename T>() {
      run_sum_kernel<<<grid_for(p.outer * n * p.inner), kThreads, 0, stream>>>(
          static_cast<T*>(c.output.raw_data()), data_of<T>(updates), data_of<I>(keys),
          data_of<int64_t>(positions), p, n);
    });
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void register_scatter_add_kernel(OpTable& t) {
  t.set_kernel(OpId::scatter_add, DeviceType::cuda, scatter_add);
}

}  // namespace kiln::cuda
