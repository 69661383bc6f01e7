// Max and average pooling and their gradients on oneDNN for float32 and bfloat16 (where oneDNN
// has no bfloat16 for this processor, on float32 copies), on NHWC tensors in place, except
// float32 max pools whose windows tile the input, which run kiln's own loops (tiled_max_pool.h).
// float64 takes the reference loops: oneDNN has none, and gradient checks need it.
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/onednn_run.h"
#include "kiln/framework/backends/cpu/reference/reference.h"
#include "kiln/framework/backends/cpu/tiled_max_pool.h"
#include "kiln/framework/backends/cpu/widened_bf16.h"
#include "kiln/framework/backends/cpu/window_geometry.h"
#include "kiln/framework/ops/pool_argmax_limit.h"

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

PoolDescs pool_descs(const PoolGeometry& g, DType dtype) {
  return {onednn_nhwc(g.batch, g.channels, g.h.in, g.w.in, dtype),
          onednn_nhwc(g.batch, g.channels, g.h.out, g.w.out, dtype),
          {g.h.stride, g.w.stride},
          {g.h.kernel, g.w.kernel},
          {g.h.pad_before, g.w.pad_before},
          {g.h.pad_after, g.w.pad_after}};
}

dnnl::pooling_forward::primitive_desc forward_pd(const PoolDescs& d, dnnl::prop_kind kind,
                                                 dnnl::algorithm algorithm) {
  const dnnl::pooling_forward::desc desc(kind, algorithm, d.src, d.dst, d.strides, d.kernel,
                                         d.padding_l, d.padding_r);
  return {desc, onednn_own_scratchpad(), onednn_engine()};
}

// The primitives of one pooling op. The max gradient needs the argmax positions, which only a
// training forward records (in the workspace), so its entry holds that forward too.
struct PoolEntry {
  PoolDescs descs;
  dnnl::primitive forward;
  dnnl::primitive backward;
  memory::desc workspace;
  memory::desc forward_scratchpad, backward_scratchpad;
};

PoolEntry make_entry(const PoolGeometry& g, dnnl::algorithm algorithm, bool backward, DType dtype) {
  PoolEntry e{pool_descs(g, dtype), {}, {}, {}, {}, {}};
  const PoolDescs& d = e.descs;
  if (!backward) {
    const auto pd = forward_pd(d, dnnl::prop_kind::forward_inference, algorithm);
    e.forward = dnnl::pooling_forward(pd);
    e.forward_scratchpad = pd.scratchpad_desc();
    return e;
  }
  const auto hint = forward_pd(d, dnnl::prop_kind::forward_training, algorithm);
  const dnnl::pooling_backward::desc desc(algorithm, d.src, d.dst, d.strides, d.kernel, d.padding_l,
                                          d.padding_r);
  const dnnl::pooling_backward::primitive_desc pd(desc, onednn_own_scratchpad(), onednn_engine(),
                                                  hint);
  e.backward = dnnl::pooling_backward(pd);
  e.backward_scratchpad = pd.scratchpad_desc();
  if (algorithm == kMax) {
    e.forward = dnnl::pooling_forward(hint);
    e.workspace = hint.workspace_desc();
    e.forward_scratchpad = hint.scratchpad_desc();
  }
  return e;
}

const PoolEntry& pool_entry(const PoolGeometry& g, dnnl::algorithm algorithm, bool backward,
                            DType dtype) {
  static PrimitiveCache<PoolEntry> cache;
  PrimitiveKey key{{static_cast<int64_t>(algorithm), backward, static_cast<int64_t>(dtype), g.batch,
                    g.channels}};
  for (const WindowAxis& a : {g.h, g.w}) {
    key.values.insert(key.values.end(), {a.in, a.kernel, a.stride, a.pad_before, a.pad_after});
  }
  return cache.get(key, [&] { return make_entry(g, algorithm, backward, dtype); });
}

// max_argmax / max_backward_argmax: max_pool2d_with_argmax and max_pool2d_grad_from_argmax, whose
// argmax is oneDNN's workspace.
enum class PoolOp {
  max_forward,
  avg_forward,
  max_backward,
  avg_backward,
  max_argmax,
  max_backward_argmax
};

constexpr dnnl::algorithm algorithm_of(PoolOp op) {
  return op == PoolOp::avg_forward || op == PoolOp::avg_backward ? kAvg : kMax;
}
constexpr bool is_backward(PoolOp op) {
  return op == PoolOp::max_backward || op == PoolOp::avg_backward ||
         op == PoolOp::max_backward_argmax;
}
// Whether the op needs the training pair of primitives (and a max pool's workspace).
constexpr bool trains(PoolOp op) {
  return is_backward(op) || op == PoolOp::max_argmax;
}

// The argmax ops hand oneDNN's workspace over as a tensor: that needs it to be one uint8 per
// pooled value in the pooled value's layout, which is what oneDNN uses for max pooling windows
// of at most kMaxArgmaxWindowCells (the op's meta inference refuses larger ones).
void check_workspace_is_argmax(const PoolEntry& e) {
  const memory::desc argmax(e.descs.dst.dims(), memory::data_type::u8, memory::format_tag::nhwc);
  KILN_CHECK(e.workspace == argmax, "max_pool2d argmax: oneDNN's workspace for this pooling (",
             e.workspace.get_size(), " bytes of oneDNN data type ",
             static_cast<int>(e.workspace.data_type()), ") is not one uint8 per pooled value (",
             argmax.get_size(), " bytes) in NHWC order");
}

// One pooling op bound to its shapes: the cached primitives and their memory objects.
// max_pool2d_grad re-runs the training forward for its argmax positions (where a traced step has
// not kept them: max_pool2d_with_argmax); its workspace and pooled output are allocated here, once.
template <PoolOp kOp>
class PoolCall {
 public:
  explicit PoolCall(const KernelContext& c)
      : entry_(pool_entry(pool_geometry(geometry_source(c).shape(), c.attrs), algorithm_of(kOp),
                          trains(kOp), c.output.dtype())),
        src_(onednn_unbound(entry_.descs.src)),
        dst_(onednn_unbound(entry_.descs.dst)),
        diff_src_(onednn_unbound(entry_.descs.src)) {
    if constexpr (kOp == PoolOp::max_argmax || kOp == PoolOp::max_backward_argmax) {
      check_workspace_is_argmax(entry_);
      argmax_ = onednn_unbound(entry_.workspace);
      // An argmax no node reads still needs somewhere to go.
      if (kOp == PoolOp::max_argmax && (c.more_outputs.empty() || !c.more_outputs[0].defined()))
        argmax_ = memory(entry_.workspace, onednn_engine());
    }
    if constexpr (kOp == PoolOp::max_argmax) {
      args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}, {DNNL_ARG_WORKSPACE, argmax_}};
    } else if constexpr (kOp == PoolOp::max_backward_argmax) {
      args_ = {
          {DNNL_ARG_DIFF_DST, dst_}, {DNNL_ARG_DIFF_SRC, diff_src_}, {DNNL_ARG_WORKSPACE, argmax_}};
    } else if constexpr (kOp == PoolOp::max_backward) {
      const memory workspace(entry_.workspace, onednn_engine());
      forward_args_ = {{DNNL_ARG_SRC, src_},
                       {DNNL_ARG_DST, memory(entry_.descs.dst, onednn_engine())},
                       {DNNL_ARG_WORKSPACE, workspace}};
      args_ = {{DNNL_ARG_DIFF_DST, dst_},
               {DNNL_ARG_DIFF_SRC, diff_src_},
               {DNNL_ARG_WORKSPACE, workspace}};
    } else if constexpr (is_backward(kOp)) {
      args_ = {{DNNL_ARG_DIFF_DST, dst_}, {DNNL_ARG_DIFF_SRC, diff_src_}};
    } else {
      args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}};
    }
    args_.emplace(DNNL_ARG_SCRATCHPAD,
                  onednn_scratchpad(is_backward(kOp) ? entry_.backward_scratchpad
                                                     : entry_.forward_scratchpad));
    if (kOp == PoolOp::max_backward)
      forward_args_.emplace(DNNL_ARG_SCRATCHPAD, onednn_scratchpad(entry_.forward_scratchpad));
  }

  void run(const KernelContext& c) {
    if constexpr (kOp == PoolOp::max_argmax) {
      onednn_point(src_, c.inputs[0]);
      onednn_point(dst_, c.output);
      if (!c.more_outputs.empty() && c.more_outputs[0].defined())
        onednn_point(argmax_, c.more_outputs[0]);
      onednn_execute(entry_.forward, args_);
    } else if constexpr (kOp == PoolOp::max_backward_argmax) {
      onednn_point(argmax_, c.inputs[0]);
      onednn_point(dst_, c.inputs[1]);
      onednn_point(diff_src_, c.output);
      onednn_execute(entry_.backward, args_);
    } else if constexpr (kOp == PoolOp::max_backward) {
      onednn_point(src_, c.inputs[0]);
      onednn_execute(entry_.forward, forward_args_);
      onednn_point(dst_, c.inputs[1]);
      onednn_point(diff_src_, c.output);
      onednn_execute(entry_.backward, args_);
    } else if constexpr (is_backward(kOp)) {
      onednn_point(dst_, c.inputs[0]);
      onednn_point(diff_src_, c.output);
      onednn_execute(entry_.backward, args_);
    } else {
      onednn_point(src_, c.inputs[0]);
      onednn_point(dst_, c.output);
      onednn_execute(entry_.forward, args_);
    }
  }

 private:
  // The tensor with the pooling's input shape: x, or the output of a gradient from no x.
  static const Tensor& geometry_source(const KernelContext& c) {
    return kOp == PoolOp::avg_backward || kOp == PoolOp::max_backward_argmax ? c.output
                                                                             : c.inputs[0];
  }

  const PoolEntry& entry_;
  memory src_, dst_, diff_src_;  // dst_ holds the output gradient in backward ops
  memory argmax_;                // the argmax ops' workspace
  std::unordered_map<int, memory> forward_args_, args_;
};

// Max pools and the argmax gradient over tiling windows run kiln's own loops (tiled_max_pool.h).
template <PoolOp kOp>
bool runs_tiled(const KernelContext& c) {
  return (kOp == PoolOp::max_forward || kOp == PoolOp::max_argmax ||
          kOp == PoolOp::max_backward_argmax) &&
         tiled_max_pool_applies(c);
}

template <PoolOp kOp>
void pool_kernel(const KernelContext& c) {
  if (runs_tiled<kOp>(c)) {
    if constexpr (kOp == PoolOp::max_forward || kOp == PoolOp::max_argmax)
      tiled_max_pool_with_argmax(c);  // without an argmax output for max_pool2d
    if constexpr (kOp == PoolOp::max_backward_argmax) tiled_max_pool_grad_from_argmax(c);
    return;
  }
  if (onednn_takes(c)) {
    PoolCall<kOp>(c).run(c);
    return;
  }
  if (onednn_widens(c)) {
    run_widened_bf16(c, pool_kernel<kOp>);
    return;
  }
  switch (kOp) {
    case PoolOp::max_forward:
      reference::max_pool2d(c.inputs[0], c.output, c.attrs);
      break;
    case PoolOp::avg_forward:
      reference::avg_pool2d(c.inputs[0], c.output, c.attrs);
      break;
    case PoolOp::max_backward:
      reference::max_pool2d_grad(c.inputs[0], c.inputs[1], c.output, c.attrs);
      break;
    case PoolOp::avg_backward:
      reference::avg_pool2d_grad(c.inputs[0], c.output, c.attrs);
      break;
    case PoolOp::max_argmax:
      reference::max_pool2d_with_argmax(
          c.inputs[0], c.output, c.more_outputs.empty() ? Tensor() : c.more_outputs[0], c.attrs);
      break;
    case PoolOp::max_backward_argmax:
      reference::max_pool2d_grad_from_argmax(c.inputs[0], c.inputs[1], c.output, c.attrs);
      break;
  }
}

template <PoolOp kOp>
std::unique_ptr<PreparedKernel> prepare_pool(const KernelContext& c) {
  if (runs_tiled<kOp>(c) || !onednn_takes(c)) return nullptr;
  return std::make_unique<PreparedCall<PoolCall<kOp>>>(c);
}

}  // namespace

void register_pool_kernels(OpTable& t) {
  constexpr auto cpu = DeviceType::cpu;
  t.set_kernel(OpId::max_pool2d, cpu, pool_kernel<PoolOp::max_forward>);
  t.set_kernel(OpId::avg_pool2d, cpu, pool_kernel<PoolOp::avg_forward>);
  t.set_kernel(OpId::max_pool2d_grad, cpu, pool_kernel<PoolOp::max_backward>);
  t.set_kernel(OpId::avg_pool2d_grad, cpu, pool_kernel<PoolOp::avg_backward>);
  t.set_prepare(OpId::max_pool2d, cpu, prepare_pool<PoolOp::max_forward>);
  t.set_prepare(OpId::avg_pool2d, cpu, prepare_pool<PoolOp::avg_forward>);
  t.set_prepare(OpId::max_pool2d_grad, cpu, prepare_pool<PoolOp::max_backward>);
  t.set_prepare(OpId::avg_pool2d_grad, cpu, prepare_pool<PoolOp::avg_backward>);
  t.set_kernel(OpId::max_pool2d_with_argmax, cpu, pool_kernel<PoolOp::max_argmax>);
  t.set_kernel(OpId::max_pool2d_grad_from_argmax, cpu, pool_kernel<PoolOp::max_backward_argmax>);
  t.set_prepare(OpId::max_pool2d_with_argmax, cpu, prepare_pool<PoolOp::max_argmax>);
  t.set_prepare(OpId::max_pool2d_grad_from_argmax, cpu, prepare_pool<PoolOp::max_backward_argmax>);
}

}  // namespace kiln::cpu
