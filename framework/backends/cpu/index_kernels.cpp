// gather and scatter_add over (outer, axis, inner) views.
#include <algorithm>
#include <cstring>

#include "kiln/framework/backends/axis_split.h"
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cpu {
namespace {

// Indices as int64, each checked against [0, limit).
std::vector<int64_t> checked_indices(const Tensor& indices, int64_t limit, const char* op) {
  std::vector<int64_t> idx = indices.to_vector<int64_t>();
  for (int64_t i : idx)
    KILN_CHECK(i >= 0 && i < limit, "kiln::ops::", op, ": index ", i, " is out of range [0, ",
               limit, ")");
  return idx;
}

void gather_kernel(const KernelContext& c) {
  const Tensor& params = c.inputs[0];
  const AxisSplit p = split_at(params.shape(), static_cast<int>(c.attrs.get(attr::axis)));
  const std::vector<int64_t> idx = checked_indices(c.inputs[1], p.axis, "gather");
  const auto n = static_cast<int64_t>(idx.size());
  const size_t row = static_cast<size_t>(p.inner) * dtype_size(params.dtype());
  const char* src = static_cast<const char*>(params.raw_data());
  char* dst = static_cast<char*>(c.output.raw_data());
  parallel_for(p.outer * n, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(p.inner, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t k = b; k < e; ++k) {
                   const int64_t o = k / n, j = k % n;
                   std::memcpy(
                       dst + static_cast<size_t>(k) * row,
                       src + static_cast<size_t>(o * p.axis + idx[static_cast<size_t>(j)]) * row,
                       row);
                 }
               });
}

void scatter_add_kernel(const KernelContext& c) {
  const Tensor& base = c.inputs[0];
  const Tensor& updates = c.inputs[2];
  const AxisSplit p = split_at(base.shape(), static_cast<int>(c.attrs.get(attr::axis)));
  const std::vector<int64_t> idx = checked_indices(c.inputs[1], p.axis, "scatter_add");
  const auto n = static_cast<int64_t>(idx.size());
  std::memcpy(c.output.raw_data(), base.raw_data(), c.output.nbytes());
  visit_numeric_dtype(base.dtype(), "scatter_add", [&]<typename T>() {
    using C = compute_t<T>;
    T* out = static_cast<T*>(c.output.raw_data());
    const T* up = static_cast<const T*>(updates.raw_data());
    // Repeated indices add into the same row, so threads split columns, not indices: each
    // block of columns of an outer slice is summed over every index by one thread, and a
    // thread's consecutive blocks of one slice go together to read longer runs of each row.
    constexpr int64_t kColumns = 64;
    const int64_t blocks = (p.inner + kColumns - 1) / kColumns;
    const int64_t block_work = std::max<int64_t>(n * std::min(p.inner, kColumns), 1);
    parallel_for(p.outer * blocks, std::max<int64_t>(1, kParallelGrain / block_work),
                 [&](int64_t b, int64_t e) {
                   for (int64_t k = b; k < e;) {
                     const int64_t o = k / blocks, last = std::min(e, (o + 1) * blocks);
                     const int64_t begin = (k - o * blocks) * kColumns;
                     const int64_t end = std::min(p.inner, (last - o * blocks) * kColumns);
                     for (int64_t j = 0; j < n; ++j) {
                       T* d = out + (o * p.axis + idx[static_cast<size_t>(j)]) * p.inner;
                       const T* s = up + (o * n + j) * p.inner;
                       for (int64_t i = begin; i < end; ++i)
                         d[i] = convert_value<T>(convert_value<C>(d[i]) + convert_value<C>(s[i]));
                     }
                     k = last;
                   }
                 });
  });
}

void range_like_kernel(const KernelContext& c) {
  int64_t* out = c.output.data<int64_t>();
  for (int64_t i = 0; i < c.output.numel(); ++i) out[i] = i;
}

}  // namespace

void register_index_kernels(OpTable& t) {
  t.set_kernel(OpId::range_like, DeviceType::cpu, range_like_kernel);
  t.set_kernel(OpId::gather, DeviceType::cpu, gather_kernel);
  t.set_kernel(OpId::scatter_add, DeviceType::cpu, scatter_add_kernel);
}

}  // namespace kiln::cpu
