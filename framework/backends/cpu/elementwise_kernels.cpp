// CPU kernels of the elementwise ops: the shared functors run through the vectorized loops.
#include <algorithm>

#include "kiln/framework/backends/cpu/convert_tensor.h"
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/elementwise_loops.h"
#include "kiln/framework/ops/elementwise_dispatch.h"

namespace kiln::cpu {
namespace {

using fn::make_functor;

template <typename F, unsigned types>
void unary_kernel(const KernelContext& c) {
  const F f = make_functor<F>(c.attrs);
  visit_dtypes<types>(c.output.dtype(), "elementwise kernel",
                      [&]<typename T>() { unary_loop<T, T>(c.inputs[0], c.output, f); });
}

template <typename F, unsigned types>
void arith_kernel(const KernelContext& c) {
  const F f{};
  visit_dtypes<types>(c.output.dtype(), "elementwise kernel", [&]<typename T>() {
    binary_loop<T, T>(c.inputs[0], c.inputs[1], c.output, f);
  });
}

template <typename F>
void compare_kernel(const KernelContext& c) {
  const F f{};
  visit_dtype(c.inputs[0].dtype(),
              [&]<typename T>() { binary_loop<T, bool>(c.inputs[0], c.inputs[1], c.output, f); });
}

void logical_not_kernel(const KernelContext& c) {
  unary_loop<bool, bool>(c.inputs[0], c.output, fn::LogicalNot{});
}

void cast_kernel(const KernelContext& c) {
  convert_tensor(c.inputs[0], c.output);
}

void where_kernel(const KernelContext& c) {
  const Tensor& cond = c.inputs[0];
  const Tensor& a = c.inputs[1];
  const Tensor& b = c.inputs[2];
  const BroadcastPlan<3> plan({&cond.shape(), &a.shape(), &b.shape()}, c.output.shape());
  visit_dtype(c.output.dtype(), [&]<typename T>() {
    const bool* pc = static_cast<const bool*>(cond.raw_data());
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    T* po = static_cast<T*>(c.output.raw_data());
    const int64_t sc = plan.inner_stride(0), sa = plan.inner_stride(1), sb = plan.inner_stride(2);
    parallel_for(c.output.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
      plan.for_each_row(begin, end, [&](int64_t pos, const std::array<int64_t, 3>& off, int64_t n) {
        // A condition broadcast along the row (one choice per image of a batch) picks a whole
        // row of one side.
        if (sc == 0 && (pc[off[0]] ? sa : sb) == 1) {
          std::copy_n(pc[off[0]] ? pa + off[1] : pb + off[2], n, po + pos);
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          po[pos + i] = pc[off[0] + i * sc] ? pa[off[1] + i * sa] : pb[off[2] + i * sb];
      });
    });
  });
}

}  // namespace

void register_elementwise_kernels(OpTable& t) {
  constexpr auto cpu = DeviceType::cpu;
#define KILN_REGISTER_UNARY(X, op, F, dtypes, ...) \
  t.set_kernel(OpId::op, cpu, unary_kernel<fn::F, k##dtypes##DTypes>);
  KILN_UNARY_OP_ROWS(KILN_REGISTER_UNARY, KILN_REGISTER_UNARY, _)
#undef KILN_REGISTER_UNARY
  t.set_kernel(OpId::logical_not, cpu, logical_not_kernel);
  t.set_kernel(OpId::cast, cpu, cast_kernel);

  t.set_kernel(OpId::add, cpu, arith_kernel<fn::Add, kNumericDTypes>);
  t.set_kernel(OpId::sub, cpu, arith_kernel<fn::Sub, kNumericDTypes>);
  t.set_kernel(OpId::mul, cpu, arith_kernel<fn::Mul, kNumericDTypes>);
  t.set_kernel(OpId::div, cpu, arith_kernel<fn::Div, kNumericDTypes>);
  t.set_kernel(OpId::pow, cpu, arith_kernel<fn::Pow, kNumericDTypes>);
  t.set_kernel(OpId::maximum, cpu, arith_kernel<fn::Maximum, kNumericDTypes>);
  t.set_kernel(OpId::minimum, cpu, arith_kernel<fn::Minimum, kNumericDTypes>);
  t.set_kernel(OpId::equal, cpu, compare_kernel<fn::Equal>);
  t.set_kernel(OpId::not_equal, cpu, compare_kernel<fn::NotEqual>);
  t.set_kernel(OpId::less, cpu, compare_kernel<fn::Less>);
  t.set_kernel(OpId::less_equal, cpu, compare_kernel<fn::LessEqual>);
  t.set_kernel(OpId::greater, cpu, compare_kernel<fn::Greater>);
  t.set_kernel(OpId::greater_equal, cpu, compare_kernel<fn::GreaterEqual>);
  t.set_kernel(OpId::logical_and, cpu, arith_kernel<fn::LogicalAnd, kAllDTypes>);
  t.set_kernel(OpId::logical_or, cpu, arith_kernel<fn::LogicalOr, kAllDTypes>);
  t.set_kernel(OpId::where, cpu, where_kernel);
}

}  // namespace kiln::cpu
