// conv2d, conv2d_bias_activation and the two backward ops on cuDNN for the floating dtypes, with
// the CPU kernels' semantics: NHWC activations, Keras kernels [kh, kw, in/groups, out] (HWIO),
// strides, dilation, groups and TensorFlow's "same" padding.
//
// cuDNN takes neither HWIO kernels nor padding that differs before and after, so operands move
// through temporaries (conv_support.h): kernels to cuDNN's KRSC (KCRS for float64), and when
// "same" pads one row or column more after than before, the input gets that row or column as
// explicit zeros while cuDNN pads the symmetric rest. The input gradient is then computed over
// the padded input and cropped, the adjoint of padding. float64, which gradient checks use, runs
// on NCHW copies: cuDNN's NHWC kernels are made for the 16- and 32-bit types (PyTorch keeps double
// convolutions off NHWC too), and NCHW is the layout every cuDNN algorithm takes.
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "kiln/framework/backends/cpu/window_geometry.h"
#include "kiln/framework/backends/cuda/conv_support.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/cudnn_context.h"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

// cuDNN's types for one kiln dtype. 16-bit floats accumulate in f32, as on the CPU, and may use
// tensor cores; float32 is held to FMA kernels, since cuDNN's default math lets TF32 tensor
// cores round the operands to 10 mantissa bits, far from the CPU's float32.
struct CudnnTypes {
  cudnnDataType_t data;
  cudnnDataType_t compute;
  cudnnMathType_t math;
  cudnnTensorFormat_t format;
  AxisOrder order;  // the format's, for activations and kernels alike
};

CudnnTypes cudnn_types(DType dtype, const char* op) {
  switch (dtype) {
    case DType::f32:
      return {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, CUDNN_TENSOR_NHWC, kNhwc};
    case DType::f16:
      return {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION,
              CUDNN_TENSOR_NHWC, kNhwc};
    case DType::bf16:
      return {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION,
              CUDNN_TENSOR_NHWC, kNhwc};
    case DType::f64:
      return {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, CUDNN_TENSOR_NCHW, kNchw};
    default:
      break;
  }
  throw Error(detail::concat("kiln::ops::", op, ": no CUDA kernel for dtype ", dtype_name(dtype)));
}

int64_t numel(const Dims4& dims) {
  return dims[0] * dims[1] * dims[2] * dims[3];
}

// One convolution op as cuDNN runs it: its device, dtype and types, the CPU's geometry (the one
// place the padding rule lives), and the logical dims of the input (as kiln holds it, and with
// the extra "same" row and column cuDNN sees), the output and the kernel.
struct ConvSetup {
  const char* op;
  int device;
  DType dtype;
  CudnnTypes types;
  cpu::ConvGeometry g;
  Dims4 x, padded_x, y, kernel;
};

ConvSetup conv_setup(const char* op, const Shape& x, const Shape& kernel, const Tensor& output,
                     const Attrs& attrs) {
  const cpu::ConvGeometry g = cpu::conv_geometry(x, kernel, attrs);
  // "same" puts the odd row or column of padding after: pad_after - pad_before is 0 or 1.
  const Dims4 padded_x{g.batch, g.in_channels, g.h.in + g.h.pad_after - g.h.pad_before,
                       g.w.in + g.w.pad_after - g.w.pad_before};
  return {op,
          output.device().index,
          output.dtype(),
          cudnn_types(output.dtype(), op),
          g,
          {g.batch, g.in_channels, g.h.in, g.w.in},
          padded_x,
          {g.batch, g.out_channels, g.h.out, g.w.out},
          {g.out_channels, g.in_per_group(), g.h.kernel, g.w.kernel}};
}

int as_int(int64_t v, const ConvSetup& s) {
  KILN_CHECK(v <= std::numeric_limits<int>::max(), "kiln::ops::", s.op, " on CUDA: size ", v,
             " exceeds cuDNN's int range");
  return static_cast<int>(v);
}

// cuDNN takes dims as int, and addresses a tensor's elements with int too.
std::array<int, 4> int_dims(const Dims4& dims, const ConvSetup& s) {
  (void)as_int(numel(dims), s);
  return {as_int(dims[0], s), as_int(dims[1], s), as_int(dims[2], s), as_int(dims[3], s)};
}

// A cuDNN descriptor, destroyed with its owner.
template <typename Handle, cudnnStatus_t (*kCreate)(Handle*), cudnnStatus_t (*kDestroy)(Handle)>
class Descriptor {
 public:
  Descriptor() { KILN_CUDNN_CHECK(kCreate(&handle_)); }
  ~Descriptor() { (void)kDestroy(handle_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};
using TensorDescriptor =
    Descriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDescriptor =
    Descriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    Descriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
               cudnnDestroyConvolutionDescriptor>;

// The padded input, the output, the kernel and the convolution, described to cuDNN.
struct ConvDescriptors {
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;

  explicit ConvDescriptors(const ConvSetup& s) {
    const CudnnTypes& t = s.types;
    for (const auto& [desc, dims] : {std::pair{&x, &s.padded_x}, std::pair{&y, &s.y}}) {
      const std::array<int, 4> n = int_dims(*dims, s);
      KILN_CUDNN_CHECK(
          cudnnSetTensor4dDescriptor(desc->get(), t.format, t.data, n[0], n[1], n[2], n[3]));
    }
    const std::array<int, 4> k = int_dims(s.kernel, s);
    KILN_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w.get(), t.data, t.format, k[0], k[1], k[2], k[3]));
    // The extra "same" row and column are in the padded input; cuDNN pads the rest symmetrically.
    KILN_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        conv.get(), as_int(s.g.h.pad_before, s), as_int(s.g.w.pad_before, s),
        as_int(s.g.h.stride, s), as_int(s.g.w.stride, s), as_int(s.g.h.dilation, s),
        as_int(s.g.w.dilation, s), CUDNN_CROSS_CORRELATION, t.compute));
    KILN_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv.get(), as_int(s.g.groups, s)));
    KILN_CUDNN_CHECK(cudnnSetConvolutionMathType(conv.get(), t.math));
  }
};

// One cuDNN call's operands: descriptors, scaling factors (double for double data, float
// otherwise) and the buffers of the pass's input activation, kernel and output activation in
// cuDNN's layout, one of which the pass writes.
struct ConvCall {
  cudnnHandle_t handle;
  const ConvDescriptors& d;
  const void* alpha;
  const void* beta;
  void* x;
  void* w;
  void* y;
};

// The three passes, each with its heuristics, workspace query and call. FFT and Winograd
// algorithms are left out: they transform the operands and round differently from the direct
// sums of the CPU kernels, while the GEMM-based ones sum the same products.
enum class PassId : int64_t { forward, backward_data, backward_filter };

struct Forward {
  using Algo = cudnnConvolutionFwdAlgo_t;
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr PassId kId = PassId::forward;
  static constexpr int kAlgorithms = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr const char* kCall = "cudnnConvolutionForward";

  static bool transforms(Algo a) {
    return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
  }
  static cudnnStatus_t heuristics(const ConvCall& c, Perf* perf, int* returned) {
    return cudnnGetConvolutionForwardAlgorithm_v7(c.handle, c.d.x.get(), c.d.w.get(),
                                                  c.d.conv.get(), c.d.y.get(), kAlgorithms,
                                                  returned, perf);
  }
  static cudnnStatus_t workspace_size(const ConvCall& c, Algo a, size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(c.handle, c.d.x.get(), c.d.w.get(),
                                                   c.d.conv.get(), c.d.y.get(), a, bytes);
  }
  static cudnnStatus_t run(const ConvCall& c, Algo a, void* workspace, size_t bytes) {
    return cudnnConvolutionForward(c.handle, c.alpha, c.d.x.get(), c.x, c.d.w.get(), c.w,
                                   c.d.conv.get(), a, workspace, bytes, c.beta, c.d.y.get(), c.y);
  }
};

struct BackwardData {
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr PassId kId = PassId::backward_data;
  static constexpr int kAlgorithms = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr const char* kCall = "cudnnConvolutionBackwardData";

  static bool transforms(Algo a) {
    return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
           a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
           a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
  }
  static cudnnStatus_t heuristics(const ConvCall& c, Perf* perf, int* returned) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(c.handle, c.d.w.get(), c.d.y.get(),
                                                       c.d.conv.get(), c.d.x.get(), kAlgorithms,
                                                       returned, perf);
  }
  static cudnnStatus_t workspace_size(const ConvCall& c, Algo a, size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(c.handle, c.d.w.get(), c.d.y.get(),
                                                        c.d.conv.get(), c.d.x.get(), a, bytes);
  }
  static cudnnStatus_t run(const ConvCall& c, Algo a, void* workspace, size_t bytes) {
    return cudnnConvolutionBackwardData(c.handle, c.alpha, c.d.w.get(), c.w, c.d.y.get(), c.y,
                                        c.d.conv.get(), a, workspace, bytes, c.beta, c.d.x.get(),
                                        c.x);
  }
};

struct BackwardFilter {
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr PassId kId = PassId::backward_filter;
  static constexpr int kAlgorithms = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr const char* kCall = "cudnnConvolutionBackwardFilter";

  static bool transforms(Algo a) {
    return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT ||
           a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
  }
  static cudnnStatus_t heuristics(const ConvCall& c, Perf* perf, int* returned) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.handle, c.d.x.get(), c.d.y.get(),
                                                         c.d.conv.get(), c.d.w.get(), kAlgorithms,
                                                         returned, perf);
  }
  static cudnnStatus_t workspace_size(const ConvCall& c, Algo a, size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(c.handle, c.d.x.get(), c.d.y.get(),
                                                          c.d.conv.get(), c.d.w.get(), a, bytes);
  }
  static cudnnStatus_t run(const ConvCall& c, Algo a, void* workspace, size_t bytes) {
    return cudnnConvolutionBackwardFilter(c.handle, c.alpha, c.d.x.get(), c.x, c.d.y.get(), c.y,
                                          c.d.conv.get(), a, workspace, bytes, c.beta, c.d.w.get(),
                                          c.w);
  }
};

// The algorithm that ran for each problem (pass, dtype, device and geometry), so cuDNN's
// heuristics are asked once per shape rather than on every step.
class AlgorithmCache {
 public:
  std::optional<int> find(const std::vector<int64_t>& key) {
    const std::lock_guard lock(mutex_);
    const auto it = algorithms_.find(key);
    if (it == algorithms_.end()) return std::nullopt;
    return it->second;
  }
  void insert(std::vector<int64_t> key, int algorithm) {
    const std::lock_guard lock(mutex_);
    algorithms_.emplace(std::move(key), algorithm);
  }

 private:
  std::mutex mutex_;
  std::map<std::vector<int64_t>, int> algorithms_;
};

AlgorithmCache& algorithm_cache() {
  static AlgorithmCache instance;
  return instance;
}

std::vector<int64_t> algorithm_key(PassId pass, const ConvSetup& s) {
  std::vector<int64_t> key{static_cast<int64_t>(pass), static_cast<int64_t>(s.dtype), s.device,
                           s.g.groups};
  key.insert(key.end(), s.padded_x.begin(), s.padded_x.end());
  key.insert(key.end(), s.kernel.begin(), s.kernel.end());
  for (const cpu::WindowAxis& a : {s.g.h, s.g.w})
    key.insert(key.end(), {a.stride, a.dilation, a.pad_before});
  return key;
}

bool not_supported(cudnnStatus_t status) {
  return CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED;
}

// Runs one pass over buffers in cuDNN's layout (x: the padded input or its gradient, w: the
// kernel or its gradient, y: the output or its gradient), with the algorithm cached for the
// problem, or else the first that cuDNN's heuristics rank and accept. Deterministic algorithms
// come first: a step must give the same numbers every time it runs, or a resumed run would not
// repeat the one that was killed.
template <typename Pass>
void run_pass(const ConvSetup& s, void* x, void* w, void* y) {
  using Algo = typename Pass::Algo;
  const ConvDescriptors d(s);
  const double alpha64 = 1, beta64 = 0;
  const float alpha32 = 1, beta32 = 0;
  const bool f64 = s.dtype == DType::f64;
  const ConvCall call{cudnn_handle(s.device),
                      d,
                      f64 ? static_cast<const void*>(&alpha64) : &alpha32,
                      f64 ? static_cast<const void*>(&beta64) : &beta32,
                      x,
                      w,
                      y};
  // The status of the workspace query or of the call.
  const auto attempt = [&](Algo algo) {
    size_t bytes = 0;
    const cudnnStatus_t status = Pass::workspace_size(call, algo, &bytes);
    if (status != CUDNN_STATUS_SUCCESS) return status;
    // A temporary from the device's caching allocator, reused by later work on the same stream
    // only after this call has run.
    Tensor workspace;
    if (bytes > 0)
      workspace = Tensor::empty({static_cast<int64_t>(bytes)}, DType::u8, Device::cuda(s.device));
    return Pass::run(call, algo, bytes > 0 ? workspace.raw_data() : nullptr, bytes);
  };
  std::vector<int64_t> key = algorithm_key(Pass::kId, s);
  if (const std::optional<int> cached = algorithm_cache().find(key)) {
    const cudnnStatus_t status = attempt(static_cast<Algo>(*cached));
    if (status != CUDNN_STATUS_SUCCESS) throw_cudnn_error(status, Pass::kCall, __FILE__, __LINE__);
    return;
  }
  typename Pass::Perf perf[Pass::kAlgorithms];
  int returned = 0;
  KILN_CUDNN_CHECK(Pass::heuristics(call, perf, &returned));
  std::stable_partition(perf, perf + returned,
                        [](const auto& p) { return p.determinism == CUDNN_DETERMINISTIC; });
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS || Pass::transforms(perf[i].algo)) continue;
    const cudnnStatus_t status = attempt(perf[i].algo);
    // The heuristics may offer an algorithm that then turns these operands down.
    if (not_supported(status)) continue;
    if (status != CUDNN_STATUS_SUCCESS) throw_cudnn_error(status, Pass::kCall, __FILE__, __LINE__);
    algorithm_cache().insert(std::move(key), static_cast<int>(perf[i].algo));
    return;
  }
  throw Error(detail::concat("kiln::ops::", s.op, " on CUDA: cuDNN has no algorithm for input ",
                             Shape{s.x[0], s.x[2], s.x[3], s.x[1]}, ", kernel ",
                             Shape{s.g.h.kernel, s.g.w.kernel, s.kernel[1], s.kernel[0]},
                             ", groups ", s.g.groups, " and dtype ", dtype_name(s.dtype)));
}

// `t`, held by kiln in `order` with logical dims `dims`, as cuDNN reads it: in cuDNN's layout
// over `want` (dims, or the padded input's); `t` itself where that changes nothing.
Tensor in_cudnn_layout(const ConvSetup& s, const Tensor& t, AxisOrder order, const Dims4& dims,
                       const Dims4& want) {
  if (order == s.types.order && dims == want) return t;
  Tensor moved = Tensor::empty({numel(want)}, s.dtype, Device::cuda(s.device));
  relayout(t.raw_data(), order, dims, moved.raw_data(), s.types.order, want, dtype_size(s.dtype),
           current_stream(s.device));
  return moved;
}

// Where cuDNN writes an output kiln holds as `out` (in `order`, logical dims `dims`) when cuDNN
// computes it over `computed` dims: `out` itself where layouts and dims agree, else a temporary
// that store_output moves into `out`.
Tensor cudnn_output(const ConvSetup& s, const Tensor& out, AxisOrder order, const Dims4& dims,
                    const Dims4& computed) {
  if (order == s.types.order && dims == computed) return out;
  return Tensor::empty({numel(computed)}, s.dtype, Device::cuda(s.device));
}

void store_output(const ConvSetup& s, const Tensor& computed_out, const Dims4& computed,
                  const Tensor& out, AxisOrder order, const Dims4& dims) {
  if (computed_out.raw_data() == out.raw_data()) return;
  relayout(computed_out.raw_data(), s.types.order, computed, out.raw_data(), order, dims,
           dtype_size(s.dtype), current_stream(s.device));
}

// Whether the output is settled without cuDNN, which takes no empty operands: an empty output,
// or the empty sum over an empty input (no channels, or no batch for the kernel gradient), zero.
bool settled_without_cudnn(const KernelContext& c) {
  if (c.output.numel() == 0) return true;
  const bool empty_input =
      std::any_of(c.inputs.begin(), c.inputs.end(), [](const Tensor& t) { return t.numel() == 0; });
  if (empty_input) {
    const int device = c.output.device().index;
    KILN_CUDA_CHECK(
        cudaMemsetAsync(c.output.raw_data(), 0, c.output.nbytes(), current_stream(device)));
  }
  return empty_input;
}

// inputs: (x, kernel[, bias]) -> y
void run_forward(const KernelContext& c, const char* op) {
  const Tensor& x = c.inputs[0];
  const Tensor& kernel = c.inputs[1];
  if (settled_without_cudnn(c)) return;
  const ConvSetup s = conv_setup(op, x.shape(), kernel.shape(), c.output, c.attrs);
  const Tensor xs = in_cudnn_layout(s, x, kNhwc, s.x, s.padded_x);
  const Tensor ws = in_cudnn_layout(s, kernel, kHwio, s.kernel, s.kernel);
  const Tensor ys = cudnn_output(s, c.output, kNhwc, s.y, s.y);
  run_pass<Forward>(s, xs.raw_data(), ws.raw_data(), ys.raw_data());
  store_output(s, ys, s.y, c.output, kNhwc, s.y);
}

void conv2d_kernel(const KernelContext& c) {
  const DeviceGuard guard(c.output.device().index);
  run_forward(c, "conv2d");
}

// The bias and relu come after the convolution's rounding to the output dtype, as in the CPU's
// reference loops (its float32 path adds the bias before rounding: one rounding apart).
void conv2d_bias_activation_kernel(const KernelContext& c) {
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  run_forward(c, "conv2d_bias_activation");
  add_channel_bias(c.output.raw_data(), c.inputs[2].raw_data(), c.output.numel(), c.output.dim(3),
                   c.output.dtype(), c.attrs.get_bool("relu"), current_stream(device));
}

// inputs: (grad_out, kernel[, shape source]); attr input_shape -> dx
void conv2d_backprop_input_kernel(const KernelContext& c) {
  const Tensor& grad = c.inputs[0];
  const Tensor& kernel = c.inputs[1];
  const DeviceGuard guard(c.output.device().index);
  if (settled_without_cudnn(c)) return;
  const ConvSetup s =
      conv_setup("conv2d_backprop_input", c.output.shape(), kernel.shape(), c.output, c.attrs);
  const Tensor gs = in_cudnn_layout(s, grad, kNhwc, s.y, s.y);
  const Tensor ws = in_cudnn_layout(s, kernel, kHwio, s.kernel, s.kernel);
  const Tensor dxs = cudnn_output(s, c.output, kNhwc, s.x, s.padded_x);
  run_pass<BackwardData>(s, dxs.raw_data(), ws.raw_data(), gs.raw_data());
  store_output(s, dxs, s.padded_x, c.output, kNhwc, s.x);  // crops the extra row and column
}

// inputs: (x, grad_out); attr filter_shape -> dkernel
void conv2d_backprop_filter_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& grad = c.inputs[1];
  const DeviceGuard guard(c.output.device().index);
  if (settled_without_cudnn(c)) return;
  const ConvSetup s =
      conv_setup("conv2d_backprop_filter", x.shape(), c.output.shape(), c.output, c.attrs);
  const Tensor xs = in_cudnn_layout(s, x, kNhwc, s.x, s.padded_x);
  const Tensor gs = in_cudnn_layout(s, grad, kNhwc, s.y, s.y);
  const Tensor dws = cudnn_output(s, c.output, kHwio, s.kernel, s.kernel);
  run_pass<BackwardFilter>(s, xs.raw_data(), dws.raw_data(), gs.raw_data());
  store_output(s, dws, s.kernel, c.output, kHwio, s.kernel);
}

}  // namespace

void register_conv_kernels(OpTable& t) {
  constexpr auto gpu = DeviceType::cuda;
  t.set_kernel(OpId::conv2d, gpu, conv2d_kernel);
  t.set_kernel(OpId::conv2d_bias_activation, gpu, conv2d_bias_activation_kernel);
  t.set_kernel(OpId::conv2d_backprop_input, gpu, conv2d_backprop_input_kernel);
  t.set_kernel(OpId::conv2d_backprop_filter, gpu, conv2d_backprop_filter_kernel);
}

}  // namespace kiln::cuda
