// conv2d, its bias + relu fusion and its two backward ops on oneDNN for float32 and bfloat16
// (where oneDNN has no bfloat16 for this processor, on float32 copies); float64 takes the
// reference loops (oneDNN has none, and gradient checks need it). Activations are used in
// place as NHWC. Kernels are reordered between the Keras layout and the blocked one oneDNN picks:
// given a plain HWIO kernel, oneDNN 2.6 falls back to im2col + gemm, several times slower on
// depthwise layers (docs/framework.md, "Measured choices"), while the reorder only touches the
// kernel.
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/onednn_run.h"
#include "kiln/framework/backends/cpu/reference/reference.h"
#include "kiln/framework/backends/cpu/widened_bf16.h"
#include "kiln/framework/backends/cpu/window_geometry.h"

namespace kiln::cpu {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// forward_bias: conv2d_bias_activation, the bias added and relu applied (attr "relu") by oneDNN
// as each output block is stored.
enum class ConvPass : int64_t { forward, forward_bias, backward_input, backward_filter };

constexpr bool is_forward(ConvPass pass) {
  return pass == ConvPass::forward || pass == ConvPass::forward_bias;
}

struct ConvDescs {
  memory::desc src, weights, bias, dst;
  memory::dims strides, dilates, padding_l, padding_r;
};

ConvDescs conv_descs(const ConvGeometry& g, DType dtype) {
  const memory::data_type type = onednn_type(dtype);
  // A Keras kernel is [kh, kw, in/groups, out] with out = group * out_per_group + o: oneDNN's
  // hwio, or hwigo over its grouped dims {groups, out/groups, in/groups, kh, kw}.
  const memory::desc weights =
      g.groups == 1
          ? memory::desc({g.out_channels, g.in_channels, g.h.kernel, g.w.kernel}, type, Tag::hwio)
          : memory::desc({g.groups, g.out_per_group(), g.in_per_group(), g.h.kernel, g.w.kernel},
                         type, Tag::hwigo);
  return {onednn_nhwc(g.batch, g.in_channels, g.h.in, g.w.in, dtype),
          weights,
          memory::desc({g.out_channels}, type, Tag::a),
          onednn_nhwc(g.batch, g.out_channels, g.h.out, g.w.out, dtype),
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
  return {desc, onednn_own_scratchpad(), onednn_engine()};
}

// The forward with a bias and, for relu, an eltwise post-op (alpha 0: max(x, 0)).
dnnl::convolution_forward::primitive_desc biased_forward_pd(const ConvDescs& d, bool relu) {
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, d.src, d.weights,
      d.bias, d.dst, d.strides, d.dilates, d.padding_l, d.padding_r);
  dnnl::post_ops post_ops;
  if (relu) post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(post_ops);
  return {desc, onednn_own_scratchpad(attr), onednn_engine()};
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
  memory::desc scratchpad, reorder_scratchpad;
};

ConvEntry make_entry(ConvPass pass, const ConvGeometry& g, bool relu, DType dtype) {
  ConvEntry e{conv_descs(g, dtype), {}, {}, {}, {}, {}};
  // The same problem with the kernel layout left to oneDNN.
  ConvDescs d = e.descs;
  d.weights = memory::desc(d.weights.dims(), onednn_type(dtype), Tag::any);
  constexpr auto direct = dnnl::algorithm::convolution_direct;
  if (is_forward(pass)) {
    const auto pd = pass == ConvPass::forward ? forward_pd(d, dnnl::prop_kind::forward_inference)
                                              : biased_forward_pd(d, relu);
    e.primitive = dnnl::convolution_forward(pd);
    e.kernel_layout = pd.weights_desc();
    e.scratchpad = pd.scratchpad_desc();
  } else {
    // The backward primitives are chosen to match a training forward, passed as a hint.
    const auto hint = forward_pd(d, dnnl::prop_kind::forward_training);
    if (pass == ConvPass::backward_input) {
      const dnnl::convolution_backward_data::primitive_desc pd(
          {direct, d.src, d.weights, d.dst, d.strides, d.dilates, d.padding_l, d.padding_r},
          onednn_own_scratchpad(), onednn_engine(), hint);
      e.primitive = dnnl::convolution_backward_data(pd);
      e.kernel_layout = pd.weights_desc();
      e.scratchpad = pd.scratchpad_desc();
    } else {
      const dnnl::convolution_backward_weights::primitive_desc pd(
          {direct, d.src, d.weights, d.dst, d.strides, d.dilates, d.padding_l, d.padding_r},
          onednn_own_scratchpad(), onednn_engine(), hint);
      e.primitive = dnnl::convolution_backward_weights(pd);
      e.kernel_layout = pd.diff_weights_desc();
      e.scratchpad = pd.scratchpad_desc();
    }
  }
  if (e.kernel_layout != e.descs.weights) {
    const bool out = pass == ConvPass::backward_filter;
    const dnnl::reorder::primitive_desc pd(onednn_engine(), out ? e.kernel_layout : e.descs.weights,
                                           onednn_engine(), out ? e.descs.weights : e.kernel_layout,
                                           onednn_own_scratchpad());
    e.reorder = dnnl::reorder(pd);
    e.reorder_scratchpad = pd.scratchpad_desc();
  }
  return e;
}

const ConvEntry& conv_entry(ConvPass pass, const ConvGeometry& g, bool relu, DType dtype) {
  static PrimitiveCache<ConvEntry> cache;
  PrimitiveKey key{{static_cast<int64_t>(pass), relu, static_cast<int64_t>(dtype), g.batch,
                    g.in_channels, g.out_channels, g.groups}};
  for (const WindowAxis& a : {g.h, g.w}) {
    key.values.insert(key.values.end(),
                      {a.in, a.kernel, a.stride, a.dilation, a.pad_before, a.pad_after});
  }
  return cache.get(key, [&] { return make_entry(pass, g, relu, dtype); });
}

// One convolution pass bound to its shapes: the cached primitive, memory objects for the three
// tensors and the primitive's own kernel buffer (when it wants another layout), made once.
template <ConvPass kPass>
class ConvCall {
 public:
  explicit ConvCall(const KernelContext& c)
      : entry_(conv_entry(kPass, geometry(c), applies_relu(c), c.output.dtype())),
        activation_(onednn_unbound(entry_.descs.src)),
        user_kernel_(onednn_unbound(entry_.descs.weights)),
        own_kernel_(entry_.reorder ? memory(entry_.kernel_layout, onednn_engine()) : user_kernel_),
        bias_(onednn_unbound(entry_.descs.bias)),
        output_(onednn_unbound(entry_.descs.dst)),
        scratchpad_(onednn_scratchpad(entry_.scratchpad)),
        reorder_scratchpad_(onednn_scratchpad(entry_.reorder_scratchpad)) {
    const int src = kPass == ConvPass::backward_input ? DNNL_ARG_DIFF_SRC : DNNL_ARG_SRC;
    const int weights =
        kPass == ConvPass::backward_filter ? DNNL_ARG_DIFF_WEIGHTS : DNNL_ARG_WEIGHTS;
    const int dst = is_forward(kPass) ? DNNL_ARG_DST : DNNL_ARG_DIFF_DST;
    args_ = {{src, activation_},
             {weights, own_kernel_},
             {dst, output_},
             {DNNL_ARG_SCRATCHPAD, scratchpad_}};
    if (kPass == ConvPass::forward_bias) args_.emplace(DNNL_ARG_BIAS, bias_);
  }

  void run(const KernelContext& c) {
    // The pass's (activation, kernel, output) among the op's inputs and output.
    switch (kPass) {
      case ConvPass::forward:
        point(c.inputs[0], c.inputs[1], c.output);
        break;
      case ConvPass::forward_bias:
        point(c.inputs[0], c.inputs[1], c.output);
        onednn_point(bias_, c.inputs[2]);
        break;
      case ConvPass::backward_input:
        point(c.output, c.inputs[1], c.inputs[0]);
        break;
      case ConvPass::backward_filter:
        point(c.inputs[0], c.output, c.inputs[1]);
        break;
    }
    const bool writes_kernel = kPass == ConvPass::backward_filter;
    if (entry_.reorder && !writes_kernel)
      onednn_execute(entry_.reorder, {{DNNL_ARG_FROM, user_kernel_},
                                      {DNNL_ARG_TO, own_kernel_},
                                      {DNNL_ARG_SCRATCHPAD, reorder_scratchpad_}});
    onednn_execute(entry_.primitive, args_);
    if (entry_.reorder && writes_kernel)
      onednn_execute(entry_.reorder, {{DNNL_ARG_FROM, own_kernel_},
                                      {DNNL_ARG_TO, user_kernel_},
                                      {DNNL_ARG_SCRATCHPAD, reorder_scratchpad_}});
  }

 private:
  static bool applies_relu(const KernelContext& c) {
    return kPass == ConvPass::forward_bias && c.attrs.get(attr::relu);
  }

  static ConvGeometry geometry(const KernelContext& c) {
    switch (kPass) {
      case ConvPass::forward:
      case ConvPass::forward_bias:
        return conv_geometry(c.inputs[0].shape(), c.inputs[1].shape(), c.attrs);
      case ConvPass::backward_input:
        return conv_geometry(c.output.shape(), c.inputs[1].shape(), c.attrs);
      case ConvPass::backward_filter:
        break;
    }
    return conv_geometry(c.inputs[0].shape(), c.output.shape(), c.attrs);
  }

  void point(const Tensor& activation, const Tensor& kernel, const Tensor& output) {
    onednn_point(activation_, activation);
    onednn_point(user_kernel_, kernel);
    onednn_point(output_, output);
  }

  const ConvEntry& entry_;
  memory activation_, user_kernel_, own_kernel_, bias_, output_, scratchpad_, reorder_scratchpad_;
  std::unordered_map<int, memory> args_;
};

template <ConvPass pass>
void conv_kernel(const KernelContext& c) {
  if (onednn_takes(c)) {
    ConvCall<pass>(c).run(c);
    return;
  }
  if (onednn_widens(c)) {
    run_widened_bf16(c, conv_kernel<pass>);
    return;
  }
  switch (pass) {
    case ConvPass::forward:
      reference::conv2d(c.inputs[0], c.inputs[1], c.output, c.attrs);
      break;
    case ConvPass::forward_bias:
      reference::conv2d(c.inputs[0], c.inputs[1], c.output, c.attrs);
      reference::add_channel_bias(c.output, c.inputs[2], c.attrs.get(attr::relu));
      break;
    case ConvPass::backward_input:
      reference::conv2d_backprop_input(c.inputs[0], c.inputs[1], c.output, c.attrs);
      break;
    case ConvPass::backward_filter:
      reference::conv2d_backprop_filter(c.inputs[0], c.inputs[1], c.output, c.attrs);
      break;
  }
}

template <ConvPass pass>
std::unique_ptr<PreparedKernel> prepare_conv(const KernelContext& c) {
  if (!onednn_takes(c)) return nullptr;
  return std::make_unique<PreparedCall<ConvCall<pass>>>(c);
}

}  // namespace

void register_conv_kernels(OpTable& t) {
  constexpr auto cpu = DeviceType::cpu;
  t.set_kernel(OpId::conv2d, cpu, conv_kernel<ConvPass::forward>);
  t.set_kernel(OpId::conv2d_bias_activation, cpu, conv_kernel<ConvPass::forward_bias>);
  t.set_kernel(OpId::conv2d_backprop_input, cpu, conv_kernel<ConvPass::backward_input>);
  t.set_kernel(OpId::conv2d_backprop_filter, cpu, conv_kernel<ConvPass::backward_filter>);
  t.set_prepare(OpId::conv2d, cpu, prepare_conv<ConvPass::forward>);
  t.set_prepare(OpId::conv2d_bias_activation, cpu, prepare_conv<ConvPass::forward_bias>);
  t.set_prepare(OpId::conv2d_backprop_input, cpu, prepare_conv<ConvPass::backward_input>);
  t.set_prepare(OpId::conv2d_backprop_filter, cpu, prepare_conv<ConvPass::backward_filter>);
}

}  // namespace kiln::cpu
