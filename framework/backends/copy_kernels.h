#pragma once
// The data-movement ops (transpose, broadcast_to/like, strided_slice and its gradient, concat,
// pad) for any backend: each is one strided copy between views of its operands, with the
// views worked out here once. A backend supplies its Mover:
//   static void copy(const Tensor& dst, View d, const Tensor& src, View s, dims, elem_size);
//   static void fill(const Tensor& t, double value);
// (views are in elements, from each tensor's first element) and registers
// CopyKernels<Mover>::register_for(table, its DeviceType).
#include <cstdint>
#include <vector>

#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/slice_bounds.h"

namespace kiln {

struct View {
  int64_t offset = 0;            // elements from the tensor's first
  std::vector<int64_t> strides;  // in elements; 0 repeats, negative walks back
};

// The address of the view's first element in `t`.
inline void* address(const Tensor& t, const View& v) {
  return static_cast<char*>(t.raw_data()) + v.offset * static_cast<int64_t>(dtype_size(t.dtype()));
}

template <typename Mover>
struct CopyKernels {
  static View whole(const Tensor& t) { return {0, t.shape().strides()}; }

  // The positions a strided slice reads from (or its gradient writes to) `base`.
  static View slice_of(const Tensor& base, const Attrs& attrs) {
    const std::vector<int64_t>& b = attrs.get(attr::begin);
    const std::vector<int64_t>& e = attrs.get(attr::end);
    const std::vector<int64_t>& st = attrs.get(attr::strides);
    const std::vector<int64_t> strides = base.shape().strides();
    View v;
    for (size_t i = 0; i < strides.size(); ++i) {
      v.offset +=
          resolve_slice(base.shape()[static_cast<int>(i)], b[i], e[i], st[i]).begin * strides[i];
      v.strides.push_back(st[i] * strides[i]);
    }
    return v;
  }

  static void copy(const Tensor& dst, const View& d, const Tensor& src, const View& s,
                   const std::vector<int64_t>& dims) {
    Mover::copy(dst, d, src, s, dims, dtype_size(src.dtype()));
  }

  static void transpose(const KernelContext& c) {
    const Tensor& x = c.inputs[0];
    const std::vector<int64_t> in_strides = x.shape().strides();
    View src;
    for (const int64_t p : c.attrs.get(attr::perm))
      src.strides.push_back(in_strides[static_cast<size_t>(p)]);
    copy(c.output, whole(c.output), x, src, c.output.shape().dims());
  }

  static void broadcast_to(const KernelContext& c) {
    const Tensor& x = c.inputs[0];
    const Shape& out = c.output.shape();
    View src{0, std::vector<int64_t>(static_cast<size_t>(out.rank()), 0)};
    const std::vector<int64_t> xs = x.shape().strides();
    const int lead = out.rank() - x.rank();
    for (int i = 0; i < x.rank(); ++i)
      src.strides[static_cast<size_t>(i + lead)] =
          x.shape()[i] == 1 ? 0 : xs[static_cast<size_t>(i)];
    copy(c.output, whole(c.output), x, src, out.dims());
  }

  static void strided_slice(const KernelContext& c) {
    copy(c.output, whole(c.output), c.inputs[0], slice_of(c.inputs[0], c.attrs),
         c.output.shape().dims());
  }

  static void strided_slice_grad(const KernelContext& c) {
    Mover::fill(c.output, 0);
    copy(c.output, slice_of(c.output, c.attrs), c.inputs[0], whole(c.inputs[0]),
         c.inputs[0].shape().dims());
  }

  static void concat(const KernelContext& c) {
    const auto axis = static_cast<size_t>(c.attrs.get(attr::axis));
    const std::vector<int64_t> out_strides = c.output.shape().strides();
    int64_t start = 0;
    for (const Tensor& x : c.inputs) {
      copy(c.output, {start * out_strides[axis], out_strides}, x, whole(x), x.shape().dims());
      start += x.shape()[static_cast<int>(axis)];
    }
  }

  static void pad(const KernelContext& c) {
    const std::vector<int64_t>& p = c.attrs.get(attr::paddings);
    Mover::fill(c.output, c.attrs.get(attr::value));
    const std::vector<int64_t> out_strides = c.output.shape().strides();
    View interior{0, out_strides};
    for (size_t i = 0; i < out_strides.size(); ++i) interior.offset += p[2 * i] * out_strides[i];
    copy(c.output, interior, c.inputs[0], whole(c.inputs[0]), c.inputs[0].shape().dims());
  }

  static void register_for(OpTable& t, DeviceType device) {
    t.set_kernel(OpId::transpose, device, transpose);
    t.set_kernel(OpId::broadcast_to, device, broadcast_to);
    t.set_kernel(OpId::broadcast_like, device, broadcast_to);
    t.set_kernel(OpId::strided_slice, device, strided_slice);
    t.set_kernel(OpId::strided_slice_grad, device, strided_slice_grad);
    t.set_kernel(OpId::concat, device, concat);
    t.set_kernel(OpId::pad, device, pad);
  }
};

}  // namespace kiln
