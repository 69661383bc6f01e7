// CUDA kernels of the unary elementwise ops (one per row of unary_op_rows.h) and cast: the
// functors shared with the CPU, run by the elementwise kernel template.
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
#define KILN_REGISTER_UNARY(X, op, F, dtypes, ...) \
  t.set_kernel(OpId::op, gpu, unary_kernel<fn::F, k##dtypes##DTypes>);
  KILN_UNARY_OP_ROWS(KILN_REGISTER_UNARY, KILN_REGISTER_UNARY, _)
#undef KILN_REGISTER_UNARY
  t.set_kernel(OpId::logical_not, gpu, logical_not_kernel);
  t.set_kernel(OpId::cast, gpu, cast_kernel);
}

}  // namespace kiln::cuda
