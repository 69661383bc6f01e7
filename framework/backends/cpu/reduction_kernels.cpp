// Reductions: the input is viewed as (outer, reduced, inner) after moving non-adjacent reduced
// axes together, then reduced with vectorizable loops.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/isa_dispatch.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/backends/cpu/transpose.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cpu {
namespace {

struct Layout3 {
  int64_t outer = 1, reduced = 1, inner = 1;
};

// Returns the input to reduce (a transposed copy when the axes are not adjacent) and its layout.
std::pair<Tensor, Layout3> as_three_axes(const Tensor& x, const std::vector<int64_t>& axes) {
  const Shape& s = x.shape();
  if (axes.empty()) return {x, Layout3{x.numel(), 1, 1}};
  bool adjacent = true;
  for (size_t i = 1; i < axes.size(); ++i) adjacent = adjacent && axes[i] == axes[i - 1] + 1;
  Tensor src = x;
  std::vector<int64_t> order;  // axes of src, reduced ones contiguous
  if (!adjacent) {
    std::vector<int64_t> perm;
    for (int i = 0; i < s.rank(); ++i)
      if (std::find(axes.begin(), axes.end(), i) == axes.end()) perm.push_back(i);
    perm.insert(perm.end(), axes.begin(), axes.end());
    std::vector<int64_t> dims;
    for (int64_t p : perm) dims.push_back(s[static_cast<int>(p)]);
    src = Tensor::empty(Shape(dims), x.dtype(), x.device());
    transpose_copy(x, src, perm);
  }
  const Shape& ss = src.shape();
  const int first =
      adjacent ? static_cast<int>(axes.front()) : ss.rank() - static_cast<int>(axes.size());
  const int last = first + static_cast<int>(axes.size());
  Layout3 l;
  for (int i = 0; i < ss.rank(); ++i) {
    if (i < first)
      l.outer *= ss[i];
    else if (i < last)
      l.reduced *= ss[i];
    else
      l.inner *= ss[i];
  }
  return {src, l};
}

template <typename C>
struct SumOp {
  static C init() { return C(0); }
  static C combine(C a, C b) { return a + b; }
};
template <typename C>
struct ProdOp {
  static C init() { return C(1); }
  static C combine(C a, C b) { return a * b; }
};
template <typename C>
struct MaxOp {
  static C init() {
    if constexpr (std::numeric_limits<C>::has_infinity) return -std::numeric_limits<C>::infinity();
    return std::numeric_limits<C>::lowest();
  }
  static C combine(C a, C b) { return (a >= b || a != a) ? a : b; }
};
template <typename C>
struct MinOp {
  static C init() {
    if constexpr (std::numeric_limits<C>::has_infinity) return std::numeric_limits<C>::infinity();
    return std::numeric_limits<C>::max();
  }
  static C combine(C a, C b) { return (a <= b || a != a) ? a : b; }
};

template <typename T, template <typename> class Op>
void reduce_typed(const T* in, T* out, const Layout3& l) {
  using C = compute_t<T>;
  using R = Op<C>;
  if (l.inner == 1) {
    // Each output is a reduction of one contiguous row.
    auto row = [&](int64_t o) {
      const T* p = in + o * l.reduced;
      C acc = R::init();
      if constexpr (std::is_same_v<R, SumOp<C>>) {
#pragma omp simd reduction(+ : acc)
        for (int64_t r = 0; r < l.reduced; ++r) acc += convert_value<C>(p[r]);
      } else {
        for (int64_t r = 0; r < l.reduced; ++r) acc = R::combine(acc, convert_value<C>(p[r]));
      }
      out[o] = convert_value<T>(acc);
    };
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(l.reduced, 1));
    parallel_for(l.outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) row(o);
    });
    return;
  }
  // Accumulate whole inner rows: contiguous loads and stores. Each column is reduced in row
  // order whatever the vector width, so every instruction set level gives the same values. Wide
  // rows run at the processor's level; narrow ones stay at the baseline, which is faster there
  // (docs/framework.md, "Measured choices").
  const CpuIsa isa = l.inner >= 256 ? cpu_isa() : CpuIsa::sse2;
  auto block = [&](int64_t o, int64_t ib, int64_t ie) {
    std::vector<C> acc(static_cast<size_t>(ie - ib), R::init());
    run_at_isa(isa, [&] {
      for (int64_t r = 0; r < l.reduced; ++r) {
        const T* p = in + (o * l.reduced + r) * l.inner;
        C* a = acc.data() - ib;
#pragma omp simd
        for (int64_t i = ib; i < ie; ++i) a[i] = R::combine(a[i], convert_value<C>(p[i]));
      }
    });
    for (int64_t i = ib; i < ie; ++i)
      out[o * l.inner + i] = convert_value<T>(acc[static_cast<size_t>(i - ib)]);
  };
  if (l.outer >= omp_get_max_threads() || l.outer * l.inner * l.reduced <= kParallelGrain) {
    // An empty reduced axis (a replica's empty shard) sums to zeros.
    parallel_for(l.outer,
                 std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, l.reduced * l.inner)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t o = b; o < e; ++o) block(o, 0, l.inner);
                 });
  } else {
    for (int64_t o = 0; o < l.outer; ++o)
      parallel_for(l.inner, std::max<int64_t>(64, kParallelGrain / std::max<int64_t>(1, l.reduced)),
                   [&](int64_t b, int64_t e) { block(o, b, e); });
  }
}

template <template <typename> class Op>
void reduce_kernel(const KernelContext& c) {
  // Named, not structured bindings: lambdas may not capture those before clang 16.
  const std::pair<Tensor, Layout3> shaped = as_three_axes(c.inputs[0], c.attrs.get(attr::axes));
  const Tensor& src = shaped.first;
  const Layout3& layout = shaped.second;
  visit_numeric_dtype(c.output.dtype(), "reduction", [&]<typename T>() {
    reduce_typed<T, Op>(static_cast<const T*>(src.raw_data()), static_cast<T*>(c.output.raw_data()),
                        layout);
  });
}

template <bool is_max>
void arg_kernel(const KernelContext& c) {
  const std::vector<int64_t> axes{c.attrs.get(attr::axis)};
  const std::pair<Tensor, Layout3> shaped = as_three_axes(c.inputs[0], axes);
  const Tensor& src = shaped.first;
  const Layout3& l = shaped.second;
  KILN_CHECK(l.reduced > 0, "kiln::ops::", is_max ? "argmax" : "argmin",
             ": cannot reduce an empty axis");
  int64_t* out = static_cast<int64_t*>(c.output.raw_data());
  visit_numeric_dtype(src.dtype(), "argmax/argmin", [&]<typename T>() {
    using C = compute_t<T>;
    const T* in = static_cast<const T*>(src.raw_data());
    parallel_for(l.outer * l.inner, kParallelGrain / std::max<int64_t>(l.reduced, 1) + 1,
                 [&](int64_t b, int64_t e) {
                   for (int64_t k = b; k < e; ++k) {
                     const int64_t o = k / l.inner, i = k % l.inner;
                     const T* p = in + o * l.reduced * l.inner + i;
                     int64_t best = 0;
                     C best_v = convert_value<C>(p[0]);
                     for (int64_t r = 1; r < l.reduced; ++r) {
                       const C v = convert_value<C>(p[r * l.inner]);
                       if (is_max ? v > best_v : v < best_v) {
                         best_v = v;
                         best = r;
                       }
                     }
                     out[k] = best;
                   }
                 });
  });
}

// The element count over the axes, read from the input's shape (its data is not touched).
void size_of_kernel(const KernelContext& c) {
  int64_t n = 1;
  for (int64_t axis : c.attrs.get(attr::axes)) n *= c.inputs[0].shape()[static_cast<int>(axis)];
  visit_dtype(c.output.dtype(),
              [&]<typename T>() { *static_cast<T*>(c.output.raw_data()) = convert_value<T>(n); });
}

}  // namespace

void register_reduction_kernels(OpTable& t) {
  constexpr auto cpu = DeviceType::cpu;
  t.set_kernel(OpId::reduce_sum, cpu, reduce_kernel<SumOp>);
  t.set_kernel(OpId::reduce_max, cpu, reduce_kernel<MaxOp>);
  t.set_kernel(OpId::reduce_min, cpu, reduce_kernel<MinOp>);
  t.set_kernel(OpId::reduce_prod, cpu, reduce_kernel<ProdOp>);
  t.set_kernel(OpId::argmax, cpu, arg_kernel<true>);
  t.set_kernel(OpId::argmin, cpu, arg_kernel<false>);
  t.set_kernel(OpId::size_of, cpu, size_of_kernel);
}

}  // namespace kiln::cpu
