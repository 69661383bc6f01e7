// scatter_add on CUDA: out = base, then out[o, indices[j], i] += updates[o, j, i] for each j in
// order. The (index, j) pairs are sorted by index with CUB's radix sort, which is stable, so
// each run of one index lists its j in order, and each row in range learns where its run begins
// and ends. Runs are cut into chunks of kChunk entries; a thread per (chunk, column) adds its
// chunk's updates one by one, rounding to the dtype after each as the CPU does, the first chunk
// starting from the base, and a thread per output element then adds a longer run's chunk sums
// in order. No atomics: the result is the same on every run, and equals the CPU's bits for runs
// of up to kChunk updates (the usual Embedding gradient over a large vocabulary); a longer run
// (a small vocabulary over many tokens) is summed chunk by chunk instead of in one chain, so
// thousands of threads share it rather than one walking it alone.
// An index outside [0, axis) adds nothing, as TensorFlow's GPU kernel.
#include <algorithm>
#include <climits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

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

// Entries of a run that one thread adds in order.
inline constexpr int64_t kChunk = 64;
// Values loaded ahead of their adds, so a thread waits for memory once per block of them.
inline constexpr int kLoadsInFlight = 16;

// sum + values[offset(e)] for e in [from, to), in order, rounding to T after each add.
template <typename T, typename Offset>
__device__ T add_in_order(T sum, const T* values, Offset offset, int64_t from, int64_t to) {
  using C = compute_t<T>;
  const auto add = [](T a, T b) {
    return convert_value<T>(convert_value<C>(a) + convert_value<C>(b));
  };
  int64_t e = from;
  for (; e + kLoadsInFlight <= to; e += kLoadsInFlight) {
    T loaded[kLoadsInFlight];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) loaded[u] = values[offset(e + u)];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) sum = add(sum, loaded[u]);
  }
  for (; e < to; ++e) sum = add(sum, values[offset(e)]);
  return sum;
}

// Each row's chunks: counts[row] = ceil(run length / kChunk), 0 for a row no index names.
__global__ void chunk_count_kernel(const int64_t* begin, const int64_t* end, int64_t axis,
                                   int64_t* counts) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < axis;
       row += step)
    counts[row] = begin[row] < 0 ? 0 : (end[row] - begin[row] + kChunk - 1) / kChunk;
}

// Where the chunks of all rows lie: chunk_end[row] is the inclusive prefix sum of the counts.
struct Chunks {
  const int64_t* begin;
  const int64_t* end;
  const int64_t* chunk_end;
  int64_t slots;  // chunks the partial sums have room for (at least the total)

  __device__ int64_t first_of(int64_t row) const { return row > 0 ? chunk_end[row - 1] : 0; }
  // The row whose chunks include chunk c (c below the total): the first with chunk_end > c.
  __device__ int64_t row_of(int64_t c, int64_t axis) const {
    int64_t lo = 0, hi = axis - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (chunk_end[mid] > c)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }
};

// Element k of an (outer, middle, inner) iteration space, as its three coordinates.
struct Coordinates {
  int64_t o, m, i;
};
__device__ Coordinates coordinates_of(int64_t k, int64_t middle, int64_t inner) {
  return {k / (inner * middle), (k / inner) % middle, k % inner};
}

// A thread per (o, chunk, i): the chunk's updates in order, from the base for a row's first
// chunk, into the output when the row has no other chunk and into partial otherwise.
// positions: the j of each sorted key.
template <typename T>
__global__ void chunk_sum_kernel(T* out, T* partial, const T* updates, const int64_t* positions,
                                 Chunks ch, AxisSplit p, int64_t n) {
  const int64_t total = p.outer * ch.slots * p.inner;
  const int64_t chunks = ch.chunk_end[p.axis - 1];
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const auto [o, c, i] = coordinates_of(k, ch.slots, p.inner);
    if (c >= chunks) continue;
    const int64_t row = ch.row_of(c, p.axis);
    const int64_t first = ch.first_of(row);
    const int64_t from = ch.begin[row] + (c - first) * kChunk;
    const int64_t to = ch.end[row] < from + kChunk ? ch.end[row] : from + kChunk;
    T* target = out + (o * p.axis + row) * p.inner + i;
    const T start = c == first ? *target : convert_value<T>(compute_t<T>(0));
    const T* slice = updates + o * n * p.inner + i;
    const T sum = add_in_order(
        start, slice, [&](int64_t e) { return positions[e] * p.inner; }, from, to);
    if (ch.chunk_end[row] - first == 1)
      *target = sum;
    else
      partial[(o * ch.slots + c) * p.inner + i] = sum;
  }
}

// A thread per output element of a row with several chunks: their sums in order.
template <typename T>
__global__ void combine_chunks_kernel(T* out, const T* partial, Chunks ch, AxisSplit p) {
  const int64_t total = p.outer * p.axis * p.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const auto [o, row, i] = coordinates_of(k, p.axis, p.inner);
    const int64_t first = ch.first_of(row), last = ch.chunk_end[row];
    if (last - first < 2) continue;
    const T* slice = partial + o * ch.slots * p.inner + i;
    const auto offset = [&](int64_t c) { return c * p.inner; };
    out[k] = add_in_order(slice[offset(first)], slice, offset, first + 1, last);
  }
}

// Runs a CUB device algorithm: asks its scratch size, allocates it on the device, runs it.
template <typename Algorithm>
void run_cub(Algorithm algorithm, const Device& device) {
  size_t bytes = 0;
  KILN_CUDA_CHECK(algorithm(nullptr, bytes));
  const Tensor scratch =
      Tensor::empty({static_cast<int64_t>(std::max<size_t>(bytes, 1))}, DType::u8, device);
  KILN_CUDA_CHECK(algorithm(scratch.raw_data(), bytes));
}

// The indices sorted, with each one's position j (stable: equal indices keep j's order).
template <typename I>
void sort_by_index(const Tensor& indices, const Tensor& keys, const Tensor& positions,
                   cudaStream_t stream) {
  const int64_t n = indices.numel();
  KILN_CHECK(n <= INT_MAX, "kiln::ops::scatter_add on CUDA: ", n, " indices exceed ", INT_MAX);
  const Tensor order = Tensor::empty({n}, DType::i64, indices.device());
  iota(order);
  run_cub(
      [&](void* scratch, size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(
            scratch, bytes, data_of<I>(indices), static_cast<I*>(keys.raw_data()),
            data_of<int64_t>(order), static_cast<int64_t*>(positions.raw_data()),
            static_cast<int>(n), 0, static_cast<int>(sizeof(I) * 8), stream);
      },
      indices.device());
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
  KILN_CHECK(p.axis <= INT_MAX, "kiln::ops::scatter_add on CUDA: axis of ", p.axis,
             " rows exceeds ", INT_MAX);
  const Tensor keys = Tensor::empty({n}, indices.dtype(), indices.device());
  const Tensor positions = Tensor::empty({n}, DType::i64, indices.device());
  // begin, end, the chunk counts and their prefix sums, each p.axis long; all-ones bytes read
  // as -1, "no run".
  const Tensor rows = Tensor::empty({4, p.axis}, DType::i64, indices.device());
  KILN_CUDA_CHECK(cudaMemsetAsync(rows.raw_data(), 0xff, rows.nbytes(), stream));
  int64_t* begin = static_cast<int64_t*>(rows.raw_data());
  int64_t* end = begin + p.axis;
  int64_t* counts = end + p.axis;
  int64_t* chunk_end = counts + p.axis;
  visit_dtypes<kIndexDTypes>(indices.dtype(), "scatter_add indices", [&]<typename I>() {
    sort_by_index<I>(indices, keys, positions, stream);
    run_bounds_kernel<<<grid_for(n), kThreads, 0, stream>>>(data_of<I>(keys), n, p.axis, begin,
                                                            end);
  });
  chunk_count_kernel<<<grid_for(p.axis), kThreads, 0, stream>>>(begin, end, p.axis, counts);
  run_cub(
      [&](void* scratch, size_t& bytes) {
        return cub::DeviceScan::InclusiveSum(scratch, bytes, counts, chunk_end,
                                             static_cast<int>(p.axis), stream);
      },
      indices.device());
  // Each row's chunks but its last are full, and at most min(axis, n) rows have a run.
  const int64_t slots = std::min(n, (n + kChunk - 1) / kChunk + std::min(p.axis, n));
  const Chunks ch{begin, end, chunk_end, slots};
  visit_dtypes<kNumericDTypes>(base.dtype(), "CUDA kernel", [&]<typename T>() {
    const Tensor partial = Tensor::empty({p.outer, slots, p.inner}, base.dtype(), base.device());
    T* out = static_cast<T*>(c.output.raw_data());
    chunk_sum_kernel<<<grid_for(p.outer * slots * p.inner), kThreads, 0, stream>>>(
        out, static_cast<T*>(partial.raw_data()), data_of<T>(updates), data_of<int64_t>(positions),
        ch, p, n);
    combine_chunks_kernel<<<grid_for(c.output.numel()), kThreads, 0, stream>>>(
        out, data_of<T>(partial), ch, p);
  });
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void register_scatter_add_kernel(OpTable& t) {
  t.set_kernel(OpId::scatter_add, DeviceType::cuda, scatter_add);
}

}  // namespace kiln::cuda
