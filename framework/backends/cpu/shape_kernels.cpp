// Data-movement kernels, each a strided_copy with the right strides.
#include <cstring>
#include <limits>

#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/elementwise_loops.h"
#include "kiln/framework/backends/cpu/strided_copy.h"
#include "kiln/framework/backends/cpu/transpose.h"
#include "kiln/framework/ops/slice_bounds.h"

namespace kiln::cpu {
namespace {

char* bytes(const Tensor& t) {
  return static_cast<char*>(t.raw_data());
}

StridedView contiguous(const Tensor& t) {
  return {t.raw_data(), t.shape().strides()};
}

void fill(const Tensor& t, double value) {
  visit_dtype(t.dtype(), [&]<typename T>() {
    T* p = static_cast<T*>(t.raw_data());
    const T v = convert_value<T>(value);
    const int64_t n = t.numel();
    parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = v;
    });
  });
}

void transpose_kernel(const KernelContext& c) {
  transpose_copy(c.inputs[0], c.output, c.attrs.get_ints("perm"));
}

void broadcast_to_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Shape& out = c.output.shape();
  std::vector<int64_t> strides(static_cast<size_t>(out.rank()), 0);
  const auto xs = x.shape().strides();
  const int lead = out.rank() - x.rank();
  for (int i = 0; i < x.rank(); ++i)
    strides[static_cast<size_t>(i + lead)] = x.shape()[i] == 1 ? 0 : xs[static_cast<size_t>(i)];
  strided_copy(contiguous(c.output), {x.raw_data(), strides}, out.dims(), dtype_size(x.dtype()));
}

// The input positions a strided slice reads, as a strided view of `base`.
StridedView slice_view(const Tensor& base, const Attrs& attrs) {
  const auto& b = attrs.get_ints("begin");
  const auto& e = attrs.get_ints("end");
  const auto& st = attrs.get_ints("strides");
  const auto strides = base.shape().strides();
  int64_t offset = 0;
  std::vector<int64_t> s;
  for (size_t i = 0; i < strides.size(); ++i) {
    offset +=
        resolve_slice(base.shape()[static_cast<int>(i)], b[i], e[i], st[i]).begin * strides[i];
    s.push_back(st[i] * strides[i]);
  }
  return {bytes(base) + offset * static_cast<int64_t>(dtype_size(base.dtype())), s};
}

void strided_slice_kernel(const KernelContext& c) {
  strided_copy(contiguous(c.output), slice_view(c.inputs[0], c.attrs), c.output.shape().dims(),
               dtype_size(c.output.dtype()));
}

void strided_slice_grad_kernel(const KernelContext& c) {
  std::memset(c.output.raw_data(), 0, c.output.nbytes());
  strided_copy(slice_view(c.output, c.attrs), contiguous(c.inputs[0]), c.inputs[0].shape().dims(),
               dtype_size(c.output.dtype()));
}

void concat_kernel(const KernelContext& c) {
  const auto axis = static_cast<size_t>(c.attrs.get_int("axis"));
  const auto out_strides = c.output.shape().strides();
  const auto esz = static_cast<int64_t>(dtype_size(c.output.dtype()));
  int64_t start = 0;
  for (const Tensor& x : c.inputs) {
    const StridedView dst{bytes(c.output) + start * out_strides[axis] * esz, out_strides};
    strided_copy(dst, contiguous(x), x.shape().dims(), static_cast<size_t>(esz));
    start += x.shape()[static_cast<int>(axis)];
  }
}

void pad_kernel(const KernelContext& c) {
  const auto& p = c.attrs.get_ints("paddings");
  fill(c.output, c.attrs.get_float("value"));
  const auto out_strides = c.output.shape().strides();
  int64_t offset = 0;
  for (size_t i = 0; i < out_strides.size(); ++i) offset += p[2 * i] * out_strides[i];
  const auto esz = static_cast<int64_t>(dtype_size(c.output.dtype()));
  strided_copy({bytes(c.output) + offset * esz, out_strides}, contiguous(c.inputs[0]),
               c.inputs[0].shape().dims(), static_cast<size_t>(esz));
}

}  // namespace

void transpose_copy(const Tensor& in, const Tensor& out, const std::vector<int64_t>& perm) {
  const auto in_strides = in.shape().strides();
  std::vector<int64_t> src_strides;
  for (int64_t p : perm) src_strides.push_back(in_strides[static_cast<size_t>(p)]);
  strided_copy(contiguous(out), {in.raw_data(), src_strides}, out.shape().dims(),
               dtype_size(in.dtype()));
}

void register_shape_kernels(OpTable& t) {
  constexpr auto cpu = DeviceType::cpu;
  t.set_kernel(OpId::transpose, cpu, transpose_kernel);
  t.set_kernel(OpId::broadcast_to, cpu, broadcast_to_kernel);
  t.set_kernel(OpId::broadcast_like, cpu, broadcast_to_kernel);
  t.set_kernel(OpId::strided_slice, cpu, strided_slice_kernel);
  t.set_kernel(OpId::strided_slice_grad, cpu, strided_slice_grad_kernel);
  t.set_kernel(OpId::concat, cpu, concat_kernel);
  t.set_kernel(OpId::pad, cpu, pad_kernel);
}

}  // namespace kiln::cpu
