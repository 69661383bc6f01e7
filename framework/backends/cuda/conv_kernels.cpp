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
//
// Each op is a ConvCall built from shapes alone, once per planned step (the executor's prepared
// kernel) or per eager call, holding the cuDNN descriptors and the algorithm; a run binds the data.
// The algorithm is the first of cuDNN's ranking that runs, passing over those whose workspace
// cannot be allocated (algorithm_choice.h).
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/framework/backends/algorithm_choice.h"
#include "kiln/framework/backends/cpu/prepared_call.h"
#include "kiln/framework/backends/cpu/window_geometry.h"
#include "kiln/framework/backends/cuda/conv_support.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/cudnn_context.h"
#include "kiln/framework/backends/cuda/gemm_types.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/tensor_float_32.h"

namespace kiln::cuda {
namespace {

// float32's math: FMA kernels, since cuDNN's default math lets TF32 tensor cores round the
// operands to 10 mantissa bits, far from the CPU's float32; tensor cores once the user enables
// TF32 (tensor_float_32.h).
cudnnMathType_t float32_math() {
  return tensor_float_32_execution_enabled() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
}

// cuDNN's types for one kiln dtype. 16-bit floats accumulate in f32, as on the CPU, and may use
// tensor cores.
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
      return {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, float32_math(), CUDNN_TENSOR_NHWC, kNhwc};
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
struct CudnnOperands {
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
  static constexpr const char* kWorkspaceCall = "cudnnGetConvolutionForwardWorkspaceSize";

  static bool transforms(Algo a) {
    return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
  }
  static cudnnStatus_t heuristics(const CudnnOperands& c, Perf* perf, int* returned) {
    return cudnnGetConvolutionForwardAlgorithm_v7(c.handle, c.d.x.get(), c.d.w.get(),
                                                  c.d.conv.get(), c.d.y.get(), kAlgorithms,
                                                  returned, perf);
  }
  static cudnnStatus_t workspace_size(const CudnnOperands& c, Algo a, size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(c.handle, c.d.x.get(), c.d.w.get(),
                                                   c.d.conv.get(), c.d.y.get(), a, bytes);
  }
  static cudnnStatus_t run(const CudnnOperands& c, Algo a, void* workspace, size_t bytes) {
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
  static constexpr const char* kWorkspaceCall = "cudnnGetConvolutionBackwardDataWorkspaceSize";

  static bool transforms(Algo a) {
    return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
           a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
           a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
  }
  static cudnnStatus_t heuristics(const CudnnOperands& c, Perf* perf, int* returned) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(c.handle, c.d.w.get(), c.d.y.get(),
                                                       c.d.conv.get(), c.d.x.get(), kAlgorithms,
                                                       returned, perf);
  }
  static cudnnStatus_t workspace_size(const CudnnOperands& c, Algo a, size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(c.handle, c.d.w.get(), c.d.y.get(),
                                                        c.d.conv.get(), c.d.x.get(), a, bytes);
  }
  static cudnnStatus_t run(const CudnnOperands& c, Algo a, void* workspace, size_t bytes) {
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
  static constexpr const char* kWorkspaceCall = "cudnnGetConvolutionBackwardFilterWorkspaceSize";

  static bool transforms(Algo a) {
    return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT ||
           a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING ||
           a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
  }
  static cudnnStatus_t heuristics(const CudnnOperands& c, Perf* perf, int* returned) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.handle, c.d.x.get(), c.d.y.get(),
                                                         c.d.conv.get(), c.d.w.get(), kAlgorithms,
                                                         returned, perf);
  }
  static cudnnStatus_t workspace_size(const CudnnOperands& c, Algo a, size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(c.handle, c.d.x.get(), c.d.y.get(),
                                                          c.d.conv.get(), c.d.w.get(), a, bytes);
  }
  static cudnnStatus_t run(const CudnnOperands& c, Algo a, void* workspace, size_t bytes) {
    return cudnnConvolutionBackwardFilter(c.handle, c.alpha, c.d.x.get(), c.x, c.d.y.get(), c.y,
                                          c.d.conv.get(), a, workspace, bytes, c.beta, c.d.w.get(),
                                          c.w);
  }
};

// The algorithm first chosen for each problem (pass, dtype, device and geometry), which every
// later eager call and planned step of that problem starts from: eager calls then skip cuDNN's
// heuristics, and run_eagerly computes with the algorithm its traced steps use, so it gives
// their numbers.
class AlgorithmCache {
 public:
  std::optional<AlgorithmCandidate> find(const std::vector<int64_t>& key) {
    const std::lock_guard lock(mutex_);
    const auto it = algorithms_.find(key);
    if (it == algorithms_.end()) return std::nullopt;
    return it->second;
  }
  void insert(std::vector<int64_t> key, AlgorithmCandidate algorithm) {
    const std::lock_guard lock(mutex_);
    algorithms_.emplace(std::move(key), algorithm);
  }

 private:
  std::mutex mutex_;
  std::map<std::vector<int64_t>, AlgorithmCandidate> algorithms_;
};

AlgorithmCache& algorithm_cache() {
  static AlgorithmCache instance;
  return instance;
}

std::vector<int64_t> algorithm_key(PassId pass, const ConvSetup& s) {
  std::vector<int64_t> key{static_cast<int64_t>(pass), static_cast<int64_t>(s.dtype),
                           static_cast<int64_t>(s.types.math), s.device, s.g.groups};
  key.insert(key.end(), s.padded_x.begin(), s.padded_x.end());
  key.insert(key.end(), s.kernel.begin(), s.kernel.end());
  for (const cpu::WindowAxis& a : {s.g.h, s.g.w})
    key.insert(key.end(), {a.stride, a.dilation, a.pad_before});
  return key;
}

bool not_supported(cudnnStatus_t status) {
  return CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED;
}

// The algorithms cuDNN's heuristics rank for the problem, with their workspaces, best first and
// deterministic ones before the others: a step must give the same numbers every time it runs, or
// a resumed run would not repeat the one that was killed. Those the heuristics or the workspace
// query turn down, and those that transform the operands, are left out.
template <typename Pass>
std::vector<AlgorithmCandidate> ranked_candidates(const CudnnOperands& call) {
  typename Pass::Perf perf[Pass::kAlgorithms];
  int returned = 0;
  KILN_CUDNN_CHECK(Pass::heuristics(call, perf, &returned));
  std::stable_partition(perf, perf + returned,
                        [](const auto& p) { return p.determinism == CUDNN_DETERMINISTIC; });
  std::vector<AlgorithmCandidate> candidates;
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS || Pass::transforms(perf[i].algo)) continue;
    size_t bytes = 0;
    const cudnnStatus_t status = Pass::workspace_size(call, perf[i].algo, &bytes);
    if (not_supported(status)) continue;
    if (status != CUDNN_STATUS_SUCCESS)
      throw_cudnn_error(status, Pass::kWorkspaceCall, __FILE__, __LINE__);
    candidates.push_back({static_cast<int>(perf[i].algo), bytes});
  }
  return candidates;
}

// A workspace of `bytes` (> 0) from the device's caching allocator, reused by later work on the
// same stream only after the call it is for has run; none when the device cannot give that much:
// the allocator throws kiln::Error once it has returned its cached blocks to the driver and still
// finds no room.
std::optional<Tensor> try_workspace(size_t bytes, int device) {
  try {
    return Tensor::empty({static_cast<int64_t>(bytes)}, DType::u8, Device::cuda(device));
  } catch (const Error&) {
    return std::nullopt;
  }
}

// One cuDNN pass of one convolution, bound to its shapes: the setup and descriptors, made once,
// and the algorithm. That is chosen on the first run rather than when a step is planned: whether
// an algorithm takes the operands (cuDNN may turn one of its own heuristics' down only when
// called) and whether its workspace can be allocated (the step's arena and the other steps'
// temporaries are in place only then) are known only when it runs; and a problem chosen for
// before (AlgorithmCache) never asks the heuristics again.
template <typename Pass>
class CudnnConv {
 public:
  explicit CudnnConv(const ConvSetup& s)
      : setup_(s),
        descriptors_(setup_),
        key_(algorithm_key(Pass::kId, setup_)),
        choice_(algorithm_cache().find(key_)) {}

  const ConvSetup& setup() const { return setup_; }

  // Runs the pass over buffers in cuDNN's layout (x: the padded input or its gradient, w: the
  // kernel or its gradient, y: the output or its gradient).
  void run(void* x, void* w, void* y) {
    const ConvSetup& s = setup_;
    const double alpha64 = 1, beta64 = 0;
    const float alpha32 = 1, beta32 = 0;
    const bool f64 = s.dtype == DType::f64;
    const CudnnOperands call{cudnn_handle(s.device),
                             descriptors_,
                             f64 ? static_cast<const void*>(&alpha64) : &alpha32,
                             f64 ? static_cast<const void*>(&beta64) : &beta32,
                             x,
                             w,
                             y};
    const auto rank = [&] { return ranked_candidates<Pass>(call); };
    const auto attempt = [&](const AlgorithmCandidate& a) {
      const size_t bytes = a.workspace_bytes;
      std::optional<Tensor> workspace;
      if (bytes > 0) {
        workspace = try_workspace(bytes, s.device);
        if (!workspace) return AttemptResult::workspace_unavailable;
      }
      const cudnnStatus_t status = Pass::run(call, static_cast<typename Pass::Algo>(a.algorithm),
                                             workspace ? workspace->raw_data() : nullptr, bytes);
      if (status == CUDNN_STATUS_SUCCESS) return AttemptResult::ran;
      // The heuristics may offer an algorithm that then turns these operands down.
      if (not_supported(status)) return AttemptResult::not_supported;
      throw_cudnn_error(status, Pass::kCall, __FILE__, __LINE__);
    };
    const auto describe = [&] {
      return detail::concat("kiln::ops::", s.op, " on CUDA (cuDNN) with input ",
                            Shape{s.x[0], s.x[2], s.x[3], s.x[1]}, ", kernel ",
                            Shape{s.g.h.kernel, s.g.w.kernel, s.kernel[1], s.kernel[0]},
                            ", output ", Shape{s.y[0], s.y[2], s.y[3], s.y[1]}, ", groups ",
                            s.g.groups, " and dtype ", dtype_name(s.dtype));
    };
    if (choice_.run(rank, attempt, describe)) algorithm_cache().insert(key_, *choice_.chosen());
  }

 private:
  ConvSetup setup_;
  ConvDescriptors descriptors_;
  std::vector<int64_t> key_;
  AlgorithmChoice choice_;
};

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

// The filter gradient as one GEMM, dw = im2col(x)^T . grad_out (conv_support.h), for ungrouped
// convolutions whose patches fit kMaxPatchBytes: cuBLAS sums each of dw's few elements over every
// output position in a fixed order, where cuDNN's deterministic filter-gradient algorithms ran
// 2 to 6 times slower than its non-deterministic ones on the Fashion-MNIST CNN's layers
// (benchmarks/gpu/conv_algorithms). Returns false, computing nothing, where it does not apply.
constexpr int64_t kMaxPatchBytes = int64_t{512} << 20;

bool filter_gradient_by_gemm(const ConvSetup& s, const Tensor& x, const Tensor& grad_out,
                             const Tensor& dw) {
  const cpu::ConvGeometry& g = s.g;
  const int64_t positions = g.batch * g.h.out * g.w.out;
  const int64_t taps = g.h.kernel * g.w.kernel * g.in_channels;
  const int64_t patch_elements = positions * taps;
  if (g.groups != 1 || patch_elements * dtype_size(s.dtype) > kMaxPatchBytes) return false;
  std::optional<Tensor> cols = try_workspace(patch_elements * dtype_size(s.dtype), s.device);
  if (!cols) return false;
  const auto narrow = [&](int64_t v) { return as_int(v, s); };
  const Im2colShape shape{narrow(g.batch),        narrow(g.in_channels), narrow(g.h.in),
                          narrow(g.w.in),         narrow(g.h.out),       narrow(g.w.out),
                          narrow(g.h.kernel),     narrow(g.w.kernel),    narrow(g.h.stride),
                          narrow(g.w.stride),     narrow(g.h.dilation),  narrow(g.w.dilation),
                          narrow(g.h.pad_before), narrow(g.w.pad_before)};
  (void)narrow(patch_elements);
  const cudaStream_t stream = current_stream(s.device);
  im2col(x.raw_data(), cols->raw_data(), shape, dtype_size(s.dtype), stream);
  // Row-major dw [taps, out] = cols^T [taps, positions] . grad_out [positions, out]. cuBLAS reads
  // a row-major matrix as its transpose, so it computes dw^T = grad_out^T . cols.
  const GemmTypes types = gemm_types(s.dtype, s.op);
  const GemmScalars scalars(1, 0);
  KILN_CUBLAS_CHECK(cublasGemmEx(
      cublas_handle(s.device), CUBLAS_OP_N, CUBLAS_OP_T, narrow(g.out_channels), narrow(taps),
      narrow(positions), scalars.alpha(types), grad_out.raw_data(), types.data,
      narrow(g.out_channels), cols->raw_data(), types.data, narrow(taps), scalars.beta(types),
      dw.raw_data(), types.data, narrow(g.out_channels), types.compute, CUBLAS_GEMM_DEFAULT));
  return true;
}

// The four ops; forward_bias is conv2d_bias_activation, the forward pass followed by the bias and
// relu (attr "relu").
enum class ConvOp { forward, forward_bias, backward_input, backward_filter };

template <ConvOp kOp>
using PassOf =
    std::conditional_t<kOp == ConvOp::backward_input, BackwardData,
                       std::conditional_t<kOp == ConvOp::backward_filter, BackwardFilter, Forward>>;

// One op bound to its shapes, built from a context whose tensors need no data yet (once per
// planned step, or per eager call); run(c) binds the data, moves operands through cuDNN's layout
// and runs the pass.
template <ConvOp kOp>
class ConvCall {
 public:
  explicit ConvCall(const KernelContext& c) {
    // cuDNN takes no empty operands; the output is then empty too, or the empty sum, zero.
    const bool empty_operand =
        c.output.numel() == 0 || std::any_of(c.inputs.begin(), c.inputs.end(),
                                             [](const Tensor& t) { return t.numel() == 0; });
    if (!empty_operand) conv_.emplace(setup(c));
  }

  void run(const KernelContext& c) {
    if (c.output.numel() == 0) return;
    const int device = c.output.device().index;
    const DeviceGuard guard(device);
    // TF32 switched on or off since the call was built: descriptors and algorithm anew.
    if (conv_ && conv_->setup().dtype == DType::f32 && conv_->setup().types.math != float32_math())
      conv_.emplace(setup(c));
    if (conv_)
      convolve(c);
    else
      KILN_CUDA_CHECK(
          cudaMemsetAsync(c.output.raw_data(), 0, c.output.nbytes(), current_stream(device)));
    // The bias and relu come after the convolution's rounding to the output dtype, as in the
    // CPU's reference loops (its float32 path adds the bias before rounding: one rounding
    // apart).
    if (kOp == ConvOp::forward_bias)
      add_channel_bias(c.output.raw_data(), c.inputs[2].raw_data(), c.output.numel(),
                       c.output.dim(3), c.output.dtype(), c.attrs.get(attr::relu),
                       current_stream(device));
  }

 private:
  static ConvSetup setup(const KernelContext& c) {
    switch (kOp) {
      case ConvOp::forward:  // inputs: (x, kernel) -> y
        return conv_setup("conv2d", c.inputs[0].shape(), c.inputs[1].shape(), c.output, c.attrs);
      case ConvOp::forward_bias:  // inputs: (x, kernel, bias) -> y
        return conv_setup("conv2d_bias_activation", c.inputs[0].shape(), c.inputs[1].shape(),
                          c.output, c.attrs);
      case ConvOp::backward_input:  // inputs: (grad_out, kernel[, shape source]) -> dx
        return conv_setup("conv2d_backprop_input", c.output.shape(), c.inputs[1].shape(), c.output,
                          c.attrs);
      case ConvOp::backward_filter:  // inputs: (x, grad_out) -> dkernel
        break;
    }
    return conv_setup("conv2d_backprop_filter", c.inputs[0].shape(), c.output.shape(), c.output,
                      c.attrs);
  }

  void convolve(const KernelContext& c) {
    const ConvSetup& s = conv_->setup();
    switch (kOp) {
      case ConvOp::forward:
      case ConvOp::forward_bias: {
        const Tensor xs = in_cudnn_layout(s, c.inputs[0], kNhwc, s.x, s.padded_x);
        const Tensor ws = in_cudnn_layout(s, c.inputs[1], kHwio, s.kernel, s.kernel);
        const Tensor ys = cudnn_output(s, c.output, kNhwc, s.y, s.y);
        conv_->run(xs.raw_data(), ws.raw_data(), ys.raw_data());
        store_output(s, ys, s.y, c.output, kNhwc, s.y);
        return;
      }
      case ConvOp::backward_input: {
        const Tensor gs = in_cudnn_layout(s, c.inputs[0], kNhwc, s.y, s.y);
        const Tensor ws = in_cudnn_layout(s, c.inputs[1], kHwio, s.kernel, s.kernel);
        const Tensor dxs = cudnn_output(s, c.output, kNhwc, s.x, s.padded_x);
        conv_->run(dxs.raw_data(), ws.raw_data(), gs.raw_data());
        store_output(s, dxs, s.padded_x, c.output, kNhwc, s.x);  // crops the extra row, column
        return;
      }
      case ConvOp::backward_filter: {
        if (filter_gradient_by_gemm(s, c.inputs[0], c.inputs[1], c.output)) return;
        const Tensor xs = in_cudnn_layout(s, c.inputs[0], kNhwc, s.x, s.padded_x);
        const Tensor gs = in_cudnn_layout(s, c.inputs[1], kNhwc, s.y, s.y);
        const Tensor dws = cudnn_output(s, c.output, kHwio, s.kernel, s.kernel);
        conv_->run(xs.raw_data(), dws.raw_data(), gs.raw_data());
        store_output(s, dws, s.kernel, c.output, kHwio, s.kernel);
        return;
      }
    }
  }

  std::optional<CudnnConv<PassOf<kOp>>> conv_;  // none when an operand is empty
};

template <ConvOp kOp>
void conv_kernel(const KernelContext& c) {
  ConvCall<kOp>(c).run(c);
}

template <ConvOp kOp>
std::unique_ptr<PreparedKernel> prepare_conv(const KernelContext& c) {
  return std::make_unique<cpu::PreparedCall<ConvCall<kOp>>>(c);
}

}  // namespace

void register_conv_kernels(OpTable& t) {
  constexpr auto gpu = DeviceType::cuda;
  t.set_kernel(OpId::conv2d, gpu, conv_kernel<ConvOp::forward>);
  t.set_kernel(OpId::conv2d_bias_activation, gpu, conv_kernel<ConvOp::forward_bias>);
  t.set_kernel(OpId::conv2d_backprop_input, gpu, conv_kernel<ConvOp::backward_input>);
  t.set_kernel(OpId::conv2d_backprop_filter, gpu, conv_kernel<ConvOp::backward_filter>);
  t.set_prepare(OpId::conv2d, gpu, prepare_conv<ConvOp::forward>);
  t.set_prepare(OpId::conv2d_bias_activation, gpu, prepare_conv<ConvOp::forward_bias>);
  t.set_prepare(OpId::conv2d_backprop_input, gpu, prepare_conv<ConvOp::backward_input>);
  t.set_prepare(OpId::conv2d_backprop_filter, gpu, prepare_conv<ConvOp::backward_filter>);
}

}  // namespace kiln::cuda
