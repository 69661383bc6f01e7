// conv2d and its two backward ops on oneDNN for float32; other dtypes take the reference loops
// (oneDNN has no float64, which gradient checks need). Activations are used in place as NHWC.
// Kernels are reordered between the Keras layout and the blocked one oneDNN picks: given a plain
// HWIO kernel, oneDNN 2.6 falls back to im2col + gemm, measured 1.2-2.5x slower single-threaded
// on typical layers and 20x or more on depthwise ones, while the reorder only touches the kernel.
#include "framework/backends/cpu/cpu_kernels.h"
#include "framework/backends/cpu/onednn_run.h"
#include "framework/backends/cpu/reference/reference.h"
#include "framework/backends/cpu/window_geometry.h"

namespace kiln::cpu {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

enum class ConvPass : int64_t { forward, backward_input, backward_filter };

struct ConvDescs {
  memory::desc src, weights, dst;
  memory::dims strides, dilates, padding_l, padding_r;
};

ConvDescs conv_descs(const ConvGeometry& g) {
  constexpr auto f32 = memory::data_type::f32;
  // A Keras kernel is [kh, kw, in/groups, out] with out = group * out_per_group + o: oneDNN's
  // hwio, or hwigo over its grouped dims {groups, out/groups, in/groups, kh, kw}.
  const memory::desc weights =
      g.groups == 1
          ? memory::desc({g.out_channels, g.in_channels, g.h.kernel, g.w.kernel}, f32, Tag::hwio)
          : memory::desc({g.groups, g.out_per_group(), g.in_per_group(), g.h.kernel, g.w.kernel},
                         f32, Tag::hwigo);
  return {onednn_nhwc(g.batch, g.in_channels, g.h.in, g.w.in),
          weights,
          onednn_nhwc(g.batch, g.out_channels, g.h.out, g.w.out),
          {g.h.stride, g.w.stride},
          // oneDNN counts dilation as the gap between taps: 0 is a dense kernel.
          {g.h.dilation - 1, g.w.dilation - 1},
          {g.h.pad_before, g.w.pad_before},
          {g.h.pad_after, g.w.pad_after}};
}

dnnl::convolution_forward::primitive_desc forward_pd(const ConvDescs& d, dnnl::prop_kind kind) {
  const dnnl::convolution_forward::desc desc(kind, dnnl::algorithm::convolution_direct, d.src,
                                             d.weights, d.dst, d.strides, d.dilates, d.padding_l,
                                             d.padding_r);
  return {desc, onednn_engine()};
}

// The primitive of one pass. Each binds three tensors: the activation (x, or dx), the kernel (w,
// or dw) and the convolution's output (y, or its gradient).
struct ConvEntry {
  ConvDescs descs;  // as kiln stores the tensors
  dnnl::primitive primitive;
  memory::desc kernel_layout;  // the primitive's
  // From descs.weights into kernel_layout (out of it for backward_filter, which writes the
  // kernel); empty when the two agree.
  dnnl::primitive reorder;
};

ConvEntry make_entry(ConvPass pass, const ConvGeometry& g) {
  ConvEntry e{conv_descs(g), {}, {}, {}};
  // The same problem with the kernel layout left to oneDNN.
  ConvDescs d = e.descs;
  d.weights = memory::desc(d.weights.dims(), memory::data_type::f32, Tag::any);
  constexpr auto direct = dnnl::algorithm::convolution_direct;
  if (pass == ConvPass::forward) {
    const auto pd = forward_pd(d, dnnl::prop_kind::forward_inference);
    e.primitive = dnnl::convolution_forward(pd);
    e.kernel_layout = pd.weights_desc();
  } else {
    // The backward primitives are chosen to match a training forward, passed as a hint.
    const auto hint = forward_pd(d, dnnl::prop_kind::forward_training);
    if (pass == ConvPass::backward_input) {
      const dnnl::convolution_backward_data::primitive_desc pd(
          {direct, d.src, d.weights, d.dst, d.strides, d.dilates, d.padding_l, d.padding_r},
          onednn_engine(), hint);
      e.primitive = dnnl::convolution_backward_data(pd);
      e.kernel_layout = pd.weights_desc();
    } else {
      const dnnl::convolution_backward_weights::primitive_desc pd(
          {direct, d.src, d.weights, d.dst, d.strides, d.dilates, d.padding_l, d.padding_r},
          onednn_engine(), hint);
      e.primitive = dnnl::convolution_backward_weights(pd);
      e.kernel_layout = pd.diff_weights_desc();
    }
  }
  if (e.kernel_layout != e.descs.weights) {
    const bool out = pass == ConvPass::backward_filter;
    e.reorder = dnnl::reorder({onednn_engine(), out ? e.kernel_layout : e.descs.weights,
                               onednn_engine(), out ? e.descs.weights : e.kernel_layout});
  }
  return e;
}

const ConvEntry& conv_entry(ConvPass pass, const ConvGeometry& g) {
  static PrimitiveCache<ConvEntry> cache;
  PrimitiveKey key{{static_cast<int64_t>(pass), g.batch, g.in_channels, g.out_channels, g.groups}};
  for (const WindowAxis& a : {g.h, g.w}) {
    key.values.insert(key.values.end(),
                      {a.in, a.kernel, a.stride, a.dilation, a.pad_before, a.pad_after});
  }
  return cache.get(key, [&] { return make_entry(pass, g); });
}

void run_conv(ConvPass pass, const ConvGeometry& g, const Tensor& activation, const Tensor& kernel,
              const Tensor& output) {
  const ConvEntry& e = conv_entry(pass, g);
  const memory user_kernel = onednn_memory(e.descs.weights, kernel);
  const memory own_kernel = e.reorder ? memory(e.kernel_layout, onednn_engine()) : user_kernel;
  const bool writes_kernel = pass == ConvPass::backward_filter;
  if (e.reorder && !writes_kernel) {
    onednn_execute(e.reorder, {{DNNL_ARG_FROM, user_kernel}, {DNNL_ARG_TO, own_kernel}});
  }
  const int src = pass == ConvPass::backward_input ? DNNL_ARG_DIFF_SRC : DNNL_ARG_SRC;
  const int weights = writes_kernel ? DNNL_ARG_DIFF_WEIGHTS : DNNL_ARG_WEIGHTS;
  const int dst = pass == ConvPass::forward ? DNNL_ARG_DST : DNNL_ARG_DIFF_DST;
  onednn_execute(e.primitive, {{src, onednn_memory(e.descs.src, activation)},
                               {weights, own_kernel},
                               {dst, onednn_memory(e.descs.dst, output)}});
  if (e.reorder && writes_kernel) {
    onednn_execute(e.reorder, {{DNNL_ARG_FROM, own_kernel}, {DNNL_ARG_TO, user_kernel}});
  }
}

void conv2d_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& w = c.inputs[1];
  if (!onednn_takes(c)) {
    reference::conv2d(x, w, c.output, c.attrs);
    return;
  }
  run_conv(ConvPass::forward, conv_geometry(x.shape(), w.shape(), c.attrs), x, w, c.output);
}

void conv2d_backprop_input_kernel(const KernelContext& c) {
  const Tensor& g = c.inputs[0];
  const Tensor& w = c.inputs[1];
  if (!onednn_takes(c)) {
    reference::conv2d_backprop_input(g, w, c.output, c.attrs);
    return;
  }
  run_conv(ConvPass::backward_input, conv_geometry(c.output.shape(), w.shape(), c.attrs), c.output,
           w, g);
}

void conv2d_backprop_filter_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& g = c.inputs[1];
  if (!onednn_takes(c)) {
    reference::conv2d_backprop_filter(x, g, c.output, c.attrs);
    return;
  }
  run_conv(ConvPass::backward_filter, conv_geometry(x.shape(), c.output.shape(), c.attrs), x,
           c.output, g);
}

}  // namespace

void register_conv_kernels(OpTable& t) {
  t.set_kernel(OpId::conv2d, DeviceType::cpu, conv2d_kernel);
  t.set_kernel(OpId::conv2d_backprop_input, DeviceType::cpu, conv2d_backprop_input_kernel);
  t.set_kernel(OpId::conv2d_backprop_filter, DeviceType::cpu, conv2d_backprop_filter_kernel);
}

}  // namespace kiln::cpu
