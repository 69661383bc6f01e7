// CUDA kernels of the binary elementwise ops and where, with NumPy broadcasting: the functors
// shared with the CPU, run by the elementwise kernel template.
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/elementwise.cuh"
#include "kiln/framework/ops/elementwise_functors.h"

namespace kiln::cuda {
namespace {

// Loads convert to the compute type (float for 16-bit floats) and stores convert to Out.
template <typename In, typename Out, typename F>
struct BinaryOp {
  const In* a;
  const In* b;
  F f;
  __device__ Out operator()(const int64_t (&off)[2]) const {
    using C = compute_t<In>;
    return convert_value<Out>(f(convert_value<C>(a[off[0]]), convert_value<C>(b[off[1]])));
  }
};

template <typename T>
struct WhereOp {
  const bool* cond;
  const T* a;
  const T* b;
  __device__ T operator()(const int64_t (&off)[3]) const {
    return cond[off[0]] ? a[off[1]] : b[off[2]];
  }
};

template <typename In, typename Out, typename F>
void map_binary(const KernelContext& c) {
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  launch_elementwise<Out, 2>({&a, &b}, c.output,
                             BinaryOp<In, Out, F>{data_of<In>(a), data_of<In>(b), F{}});
}

template <typename F>
void arith_kernel(const KernelContext& c) {
  visit_dtypes<kNumericDTypes>(c.output.dtype(), "CUDA kernel",
                               [&]<typename T>() { map_binary<T, T, F>(c); });
}

template <typename F>
void compare_kernel(const KernelContext& c) {
  visit_dtype(c.inputs[0].dtype(), [&]<typename T>() { map_binary<T, bool, F>(c); });
}

// Inference admits only bool operands.
template <typename F>
void logical_kernel(const KernelContext& c) {
  map_binary<bool, bool, F>(c);
}

void where_kernel(const KernelContext& c) {
  const Tensor& cond = c.inputs[0];
  const Tensor& a = c.inputs[1];
  const Tensor& b = c.inputs[2];
  visit_dtype(c.output.dtype(), [&]<typename T>() {
    launch_elementwise<T, 3>({&cond, &a, &b}, c.output,
                             WhereOp<T>{data_of<bool>(cond), data_of<T>(a), data_of<T>(b)});
  });
}

}  // namespace

void register_binary_kernels(OpTable& t) {
  constexpr auto gpu = DeviceType::cuda;
  t.set_kernel(OpId::add, gpu, arith_kernel<fn::Add>);
  t.set_kernel(OpId::sub, gpu, arith_kernel<fn::Sub>);
  t.set_kernel(OpId::mul, gpu, arith_kernel<fn::Mul>);
  t.set_kernel(OpId::div, gpu, arith_kernel<fn::Div>);
  t.set_kernel(OpId::pow, gpu, arith_kernel<fn::Pow>);
  t.set_kernel(OpId::maximum, gpu, arith_kernel<fn::Maximum>);
  t.set_kernel(OpId::minimum, gpu, arith_kernel<fn::Minimum>);
  t.set_kernel(OpId::equal, gpu, compare_kernel<fn::Equal>);
  t.set_kernel(OpId::not_equal, gpu, compare_kernel<fn::NotEqual>);
  t.set_kernel(OpId::less, gpu, compare_kernel<fn::Less>);
  t.set_kernel(OpId::less_equal, gpu, compare_kernel<fn::LessEqual>);
  t.set_kernel(OpId::greater, gpu, compare_kernel<fn::Greater>);
  t.set_kernel(OpId::greater_equal, gpu, compare_kernel<fn::GreaterEqual>);
  t.set_kernel(OpId::logical_and, gpu, logical_kernel<fn::LogicalAnd>);
  t.set_kernel(OpId::logical_or, gpu, logical_kernel<fn::LogicalOr>);
  t.set_kernel(OpId::where, gpu, where_kernel);
}

}  // namespace kiln::cuda
