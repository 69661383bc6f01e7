#pragma once
// Elementwise loops over contiguous data: flat for unary ops, broadcast rows for binary and
// ternary ones. Functors see the compute type (float for 16-bit floats).
#include "kiln/framework/backends/cpu/broadcast_plan.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cpu {

template <typename In, typename Out, typename F>
void unary_loop(const Tensor& x, const Tensor& out, F f) {
  const In* px = static_cast<const In*>(x.raw_data());
  Out* po = static_cast<Out*>(out.raw_data());
  using C = compute_t<In>;
  parallel_for(out.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) po[i] = convert_value<Out>(f(convert_value<C>(px[i])));
  });
}

template <typename In, typename Out, typename F>
void binary_loop(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  const In* pa = static_cast<const In*>(a.raw_data());
  const In* pb = static_cast<const In*>(b.raw_data());
  Out* po = static_cast<Out*>(out.raw_data());
  using C = compute_t<In>;
  const BroadcastPlan<2> plan({&a.shape(), &b.shape()}, out.shape());
  const int64_t sa = plan.inner_stride(0);
  const int64_t sb = plan.inner_stride(1);
  parallel_for(out.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
    plan.for_each_row(begin, end, [&](int64_t pos, const std::array<int64_t, 2>& off, int64_t n) {
      const In* ra = pa + off[0];
      const In* rb = pb + off[1];
      Out* ro = po + pos;
      // The three row shapes that matter get their own loops so each vectorizes.
      if (sa == 1 && sb == 1) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i)
          ro[i] = convert_value<Out>(f(convert_value<C>(ra[i]), convert_value<C>(rb[i])));
      } else if (sa == 1 && sb == 0) {
        const C vb = convert_value<C>(rb[0]);
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) ro[i] = convert_value<Out>(f(convert_value<C>(ra[i]), vb));
      } else if (sa == 0 && sb == 1) {
        const C va = convert_value<C>(ra[0]);
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) ro[i] = convert_value<Out>(f(va, convert_value<C>(rb[i])));
      } else {
        for (int64_t i = 0; i < n; ++i)
          ro[i] = convert_value<Out>(f(convert_value<C>(ra[i * sa]), convert_value<C>(rb[i * sb])));
      }
    });
  });
}

}  // namespace kiln::cpu
