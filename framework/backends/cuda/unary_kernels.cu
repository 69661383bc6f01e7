// CUDA kernels of the unary elementwise ops and cast: the functors shared with the CPU, run by
// the elementwise kernel template.
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/elementwise.cuh"
#include "kiln/framework/ops/elementwise_dispatch.h"

namespace kiln::cuda {
namespace {

// Loads convert to the compute type (float for 16-bit floats) and stores convert to Out.
template <typename In, typename Out, typename F>
struct UnaryOp {
  const In* x;
  F f;
  __device__ Out operator()(const int64_t (&off)[1]) const {
    return convert_value<Out>(f(convert_value<compute_t<In>>(x[off[0]])));
  }
};

template <typename In, typename Out, typename F>
void map_unary(const Tensor& x, const Tensor& out, F f) {
  launch_elementwise<Out, 1>({&x}, out, UnaryOp<In, Out, F>{data_of<In>(x), f});
}

using fn::make_functor;

template <typename F, unsigned types>
void unary_kernel(const KernelContext& c) {
  const F f = make_functor<F>(c.attrs);
  visit_dtypes<types>(c.output.dtype(), "CUDA kernel",
                      [&]<typename T>() { map_unary<T, T>(c.inputs[0], c.output, f); });
}

void logical_not_kernel(const KernelContext& c) {
  map_unary<bool, bool>(c.inputs[0], c.output, fn::LogicalNot{});
}

// A cast is nothing but UnaryOp's conversions on load and store.
struct Identity {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x;
  }
};

void cast_kernel(const KernelContext& c) {
  visit_dtype(c.inputs[0].dtype(), [&]<typename In>() {
    visit_dtype(c.output.dtype(),
                [&]<typename Out>() { map_unary<In, Out>(c.inputs[0], c.output, Identity{}); });
  });
}

}  // namespace

void register_unary_kernels(OpTable& t) {
  constexpr auto gpu = DeviceType::cuda;
  t.set_kernel(OpId::neg, gpu, unary_kernel<fn::Neg, kNumericDTypes>);
  t.set_kernel(OpId::abs, gpu, unary_kernel<fn::Abs, kNumericDTypes>);
  t.set_kernel(OpId::sign, gpu, unary_kernel<fn::Sign, kNumericDTypes>);
  t.set_kernel(OpId::exp, gpu, unary_kernel<fn::Exp, kFloatingDTypes>);
  t.set_kernel(OpId::log, gpu, unary_kernel<fn::Log, kFloatingDTypes>);
  t.set_kernel(OpId::log1p, gpu, unary_kernel<fn::Log1p, kFloatingDTypes>);
  t.set_kernel(OpId::sqrt, gpu, unary_kernel<fn::Sqrt, kFloatingDTypes>);
  t.set_kernel(OpId::rsqrt, gpu, unary_kernel<fn::Rsqrt, kFloatingDTypes>);
  t.set_kernel(OpId::square, gpu, unary_kernel<fn::Square, kNumericDTypes>);
  t.set_kernel(OpId::tanh, gpu, unary_kernel<fn::Tanh, kFloatingDTypes>);
  t.set_kernel(OpId::sigmoid, gpu, unary_kernel<fn::Sigmoid, kFloatingDTypes>);
  t.set_kernel(OpId::relu, gpu, unary_kernel<fn::Relu, kNumericDTypes>);
  t.set_kernel(OpId::leaky_relu, gpu, unary_kernel<fn::LeakyRelu, kFloatingDTypes>);
  t.set_kernel(OpId::elu, gpu, unary_kernel<fn::Elu, kFloatingDTypes>);
  t.set_kernel(OpId::gelu, gpu, unary_kernel<fn::Gelu, kFloatingDTypes>);
  t.set_kernel(OpId::softplus, gpu, unary_kernel<fn::Softplus, kFloatingDTypes>);
  t.set_kernel(OpId::sin, gpu, unary_kernel<fn::Sin, kFloatingDTypes>);
  t.set_kernel(OpId::cos, gpu, unary_kernel<fn::Cos, kFloatingDTypes>);
  t.set_kernel(OpId::erf, gpu, unary_kernel<fn::Erf, kFloatingDTypes>);
  t.set_kernel(OpId::logical_not, gpu, logical_not_kernel);
  t.set_kernel(OpId::cast, gpu, cast_kernel);
}

}  // namespace kiln::cuda
