// Max and average pooling and their gradients on oneDNN for float32, on NHWC tensors in place.
// Other dtypes take the reference loops: oneDNN has no float64, which gradient checks need.
#include "framework/backends/cpu/cpu_kernels.h"
#include "framework/backends/cpu/onednn_run.h"
#include "framework/backends/cpu/reference/reference.h"
#include "framework/backends/cpu/window_geometry.h"

namespace kiln::cpu {
namespace {

using dnnl::memory;

// Padding cells never win a max, and pooling_avg_exclude_padding leaves them out of the count:
// the Keras semantics.
constexpr auto kMax = dnnl::algorithm::pooling_max;
constexpr auto kAvg = dnnl::algorithm::pooling_avg_exclude_padding;

struct PoolDescs {
  memory::desc src, dst;
  memory::dims strides, kernel, padding_l, padding_r;
};

PoolDescs pool_descs(const PoolGeometry& g) {
  return {onednn_nhwc(g.batch, g.channels, g.h.in, g.w.in),
          onednn_nhwc(g.batch, g.channels, g.h.out, g.w.out),
          {g.h.stride, g.w.stride},
          {g.h.kernel, g.w.kernel},
          {g.h.pad_before, g.w.pad_before},
          {g.h.pad_after, g.w.pad_after}};
}

dnnl::pooling_forward::primitive_desc forward_pd(const PoolDescs& d, dnnl::prop_kind kind,
                                                 dnnl::algorithm algorithm) {
  const dnnl::pooling_forward::desc desc(kind, algorithm, d.src, d.dst, d.strides, d.kernel,
                                         d.padding_l, d.padding_r);
  return {desc, onednn_engine()};
}

// The primitives of one pooling op. The max gradient needs the argmax positions, which only a
// training forward records (in the workspace), so its entry holds that forward too.
struct PoolEntry {
  PoolDescs descs;
  dnnl::primitive forward;
  dnnl::primitive backward;
  memory::desc workspace;
};

PoolEntry make_entry(const PoolGeometry& g, dnnl::algorithm algorithm, bool backward) {
  PoolEntry e{pool_descs(g), {}, {}, {}};
  const PoolDescs& d = e.descs;
  if (!backward) {
    e.forward = dnnl::pooling_forward(forward_pd(d, dnnl::prop_kind::forward_inference, algorithm));
    return e;
  }
  const auto hint = forward_pd(d, dnnl::prop_kind::forward_training, algorithm);
  const dnnl::pooling_backward::desc desc(algorithm, d.src, d.dst, d.strides, d.kernel, d.padding_l,
                                          d.padding_r);
  e.backward = dnnl::pooling_backward({desc, onednn_engine(), hint});
  if (algorithm == kMax) {
    e.forward = dnnl::pooling_forward(hint);
    e.workspace = hint.workspace_desc();
  }
  return e;
}

const PoolEntry& pool_entry(const PoolGeometry& g, dnnl::algorithm algorithm, bool backward) {
  static PrimitiveCache<PoolEntry> cache;
  PrimitiveKey key{{static_cast<int64_t>(algorithm), backward, g.batch, g.channels}};
  for (const WindowAxis& a : {g.h, g.w}) {
    key.values.insert(key.values.end(), {a.in, a.kernel, a.stride, a.pad_before, a.pad_after});
  }
  return cache.get(key, [&] { return make_entry(g, algorithm, backward); });
}

void pool_forward(const KernelContext& c, dnnl::algorithm algorithm) {
  const Tensor& x = c.inputs[0];
  const PoolEntry& e = pool_entry(pool_geometry(x.shape(), c.attrs), algorithm, false);
  onednn_execute(e.forward, {{DNNL_ARG_SRC, onednn_memory(e.descs.src, x)},
                             {DNNL_ARG_DST, onednn_memory(e.descs.dst, c.output)}});
}

void max_pool2d_kernel(const KernelContext& c) {
  if (!onednn_takes(c)) {
    reference::max_pool2d(c.inputs[0], c.output, c.attrs);
    return;
  }
  pool_forward(c, kMax);
}

void avg_pool2d_kernel(const KernelContext& c) {
  if (!onednn_takes(c)) {
    reference::avg_pool2d(c.inputs[0], c.output, c.attrs);
    return;
  }
  pool_forward(c, kAvg);
}

void max_pool2d_grad_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& g = c.inputs[1];
  if (!onednn_takes(c)) {
    reference::max_pool2d_grad(x, g, c.output, c.attrs);
    return;
  }
  const PoolEntry& e = pool_entry(pool_geometry(x.shape(), c.attrs), kMax, true);
  // Nothing keeps a max pool's workspace (its argmax positions) until its gradient runs, so the
  // gradient re-runs the training forward to get one.
  const memory workspace(e.workspace, onednn_engine());
  const memory pooled(e.descs.dst, onednn_engine());
  onednn_execute(e.forward, {{DNNL_ARG_SRC, onednn_memory(e.descs.src, x)},
                             {DNNL_ARG_DST, pooled},
                             {DNNL_ARG_WORKSPACE, workspace}});
  onednn_execute(e.backward, {{DNNL_ARG_DIFF_DST, onednn_memory(e.descs.dst, g)},
                              {DNNL_ARG_DIFF_SRC, onednn_memory(e.descs.src, c.output)},
                              {DNNL_ARG_WORKSPACE, workspace}});
}

void avg_pool2d_grad_kernel(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  if (!onednn_takes(c)) {
    reference::avg_pool2d_grad(g, c.output, c.attrs);
    return;
  }
  const PoolEntry& e = pool_entry(pool_geometry(c.output.shape(), c.attrs), kAvg, true);
  onednn_execute(e.backward, {{DNNL_ARG_DIFF_DST, onednn_memory(e.descs.dst, g)},
                              {DNNL_ARG_DIFF_SRC, onednn_memory(e.descs.src, c.output)}});
}

}  // namespace

void register_pool_kernels(OpTable& t) {
  t.set_kernel(OpId::max_pool2d, DeviceType::cpu, max_pool2d_kernel);
  t.set_kernel(OpId::max_pool2d_grad, DeviceType::cpu, max_pool2d_grad_kernel);
  t.set_kernel(OpId::avg_pool2d, DeviceType::cpu, avg_pool2d_kernel);
  t.set_kernel(OpId::avg_pool2d_grad, DeviceType::cpu, avg_pool2d_grad_kernel);
}

}  // namespace kiln::cpu
