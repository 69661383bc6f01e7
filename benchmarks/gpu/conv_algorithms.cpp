// cuDNN's algorithms for the Fashion-MNIST CNN's two convolutions, timed by cuDNN itself
// (cudnnFind*AlgorithmEx), in float32 with each layout (NHWC, which kiln uses, and NCHW, which
// PyTorch uses) and each math mode (FMA, which kiln uses for float32, and TF32 tensor cores,
// PyTorch's default for convolutions): the evidence for how kiln should run float32 convolutions.
//   conv_algorithms [--batch 1024] [--device 0]
// Prints one line per (convolution, pass, layout, math): the algorithm kiln would pick (cuDNN's
// heuristic ranking, deterministic algorithms first, no FFT or Winograd: they round differently
// from the CPU's direct sums) with its time, then every algorithm cuDNN timed.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void check(cudnnStatus_t s, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  std::fprintf(stderr, "%s: %s\n", what, cudnnGetErrorString(s));
  std::exit(1);
}

void check(cudaError_t s, const char* what) {
  if (s == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(s));
  std::exit(1);
}

struct ConvShape {
  const char* name;
  int c, h, w, k;  // input channels and size, output channels; 3x3 kernels, valid padding
};

struct Found {
  int algo;
  float ms;
  size_t workspace;
};

// kiln's pick (cuDNN's heuristic ranking, deterministic algorithms first, FFT and Winograd left
// out) with its time, then every algorithm cuDNN timed, fastest first: id, d(eterministic) or
// n(ot), milliseconds.
template <typename Perf>
void report(const char* conv, const char* pass, const char* layout, const char* math,
            std::vector<Perf> ranked, const std::vector<Perf>& timed, bool (*allowed)(int)) {
  std::stable_partition(ranked.begin(), ranked.end(),
                        [](const Perf& p) { return p.determinism == CUDNN_DETERMINISTIC; });
  int pick = -1;
  for (const Perf& p : ranked)
    if (p.status == CUDNN_STATUS_SUCCESS && allowed(static_cast<int>(p.algo))) {
      pick = static_cast<int>(p.algo);
      break;
    }
  float pick_ms = -1;
  std::string all;
  for (const Perf& p : timed) {
    if (p.status != CUDNN_STATUS_SUCCESS) continue;
    if (static_cast<int>(p.algo) == pick) pick_ms = p.time;
    char entry[48];
    std::snprintf(entry, sizeof entry, " %d%s:%.3f", static_cast<int>(p.algo),
                  p.determinism == CUDNN_DETERMINISTIC ? "d" : "n", p.time);
    all += entry;
  }
  std::printf("%-6s %-15s %-4s %-4s kiln's pick %d %7.3f ms | timed%s\n", conv, pass, layout, math,
              pick, pick_ms, all.c_str());
}

bool forward_allowed(int a) {
  return a != CUDNN_CONVOLUTION_FWD_ALGO_FFT && a != CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING &&
         a != CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD &&
         a != CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
bool data_allowed(int a) {
  return a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT &&
         a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING &&
         a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD &&
         a != CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}
bool filter_allowed(int a) {
  return a != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT &&
         a != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING &&
         a != CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
}

void survey(cudnnHandle_t handle, const ConvShape& s, int batch, cudnnTensorFormat_t format,
            cudnnMathType_t math_type, void* x, void* w, void* y, void* workspace,
            size_t workspace_bytes) {
  const char* layout = format == CUDNN_TENSOR_NHWC ? "NHWC" : "NCHW";
  const char* math = math_type == CUDNN_FMA_MATH ? "FMA" : "TF32";
  const int oh = s.h - 2, ow = s.w - 2;
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  check(cudnnCreateTensorDescriptor(&xd), "descriptor");
  check(cudnnCreateTensorDescriptor(&yd), "descriptor");
  check(cudnnCreateFilterDescriptor(&wd), "descriptor");
  check(cudnnCreateConvolutionDescriptor(&cd), "descriptor");
  check(cudnnSetTensor4dDescriptor(xd, format, CUDNN_DATA_FLOAT, batch, s.c, s.h, s.w), "x");
  check(cudnnSetTensor4dDescriptor(yd, format, CUDNN_DATA_FLOAT, batch, s.k, oh, ow), "y");
  check(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, format, s.k, s.c, 3, 3), "w");
  check(cudnnSetConvolution2dDescriptor(cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT),
        "conv");
  check(cudnnSetConvolutionMathType(cd, math_type), "math");
  const auto pass = [&]<typename Perf>(const char* name, int count, auto heuristics, auto find,
                                       bool (*allowed)(int)) {
    std::vector<Perf> ranked(count), timed(count);
    int n = 0;
    check(heuristics(count, &n, ranked.data()), name);
    ranked.resize(n);
    check(find(count, &n, timed.data()), name);
    timed.resize(n);
    report(s.name, name, layout, math, ranked, timed, allowed);
  };
  pass.template operator()<cudnnConvolutionFwdAlgoPerf_t>(
      "forward", CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
      [&](int count, int* n, cudnnConvolutionFwdAlgoPerf_t* perf) {
        return cudnnGetConvolutionForwardAlgorithm_v7(handle, xd, wd, cd, yd, count, n, perf);
      },
      [&](int count, int* n, cudnnConvolutionFwdAlgoPerf_t* perf) {
        return cudnnFindConvolutionForwardAlgorithmEx(handle, xd, x, wd, w, cd, yd, y, count, n,
                                                      perf, workspace, workspace_bytes);
      },
      forward_allowed);
  pass.template operator()<cudnnConvolutionBwdDataAlgoPerf_t>(
      "backward_data", CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
      [&](int count, int* n, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
        return cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, wd, yd, cd, xd, count, n, perf);
      },
      [&](int count, int* n, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
        return cudnnFindConvolutionBackwardDataAlgorithmEx(handle, wd, w, yd, y, cd, xd, x, count,
                                                           n, perf, workspace, workspace_bytes);
      },
      data_allowed);
  pass.template operator()<cudnnConvolutionBwdFilterAlgoPerf_t>(
      "backward_filter", CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
      [&](int count, int* n, cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
        return cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, xd, yd, cd, wd, count, n,
                                                             perf);
      },
      [&](int count, int* n, cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
        return cudnnFindConvolutionBackwardFilterAlgorithmEx(handle, xd, x, yd, y, cd, wd, w, count,
                                                             n, perf, workspace, workspace_bytes);
      },
      filter_allowed);
  cudnnDestroyConvolutionDescriptor(cd);
  cudnnDestroyFilterDescriptor(wd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroyTensorDescriptor(xd);
}

}  // namespace

int main(int argc, char** argv) {
  int batch = 1024, device = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--batch") == 0) batch = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--device") == 0) device = std::atoi(argv[i + 1]);
  }
  check(cudaSetDevice(device), "cudaSetDevice");
  cudnnHandle_t handle;
  check(cudnnCreate(&handle), "cudnnCreate");
  const ConvShape shapes[] = {{"conv1", 1, 28, 28, 32}, {"conv2", 32, 13, 13, 64}};
  const size_t workspace_bytes = size_t{1} << 30;
  void* workspace = nullptr;
  check(cudaMalloc(&workspace, workspace_bytes), "workspace");
  std::printf("batch %d, float32, 3x3 valid convolutions; times from cuDNN %zu\n", batch,
              cudnnGetVersion());
  for (const ConvShape& s : shapes) {
    const size_t x_bytes = sizeof(float) * batch * s.c * s.h * s.w;
    const size_t y_bytes = sizeof(float) * batch * s.k * (s.h - 2) * (s.w - 2);
    const size_t w_bytes = sizeof(float) * s.k * s.c * 9;
    void *x, *y, *w;
    check(cudaMalloc(&x, x_bytes), "x");
    check(cudaMalloc(&y, y_bytes), "y");
    check(cudaMalloc(&w, w_bytes), "w");
    check(cudaMemset(x, 0, x_bytes), "x");
    check(cudaMemset(y, 0, y_bytes), "y");
    check(cudaMemset(w, 0, w_bytes), "w");
    for (const cudnnTensorFormat_t format : {CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NCHW})
      for (const cudnnMathType_t math : {CUDNN_FMA_MATH, CUDNN_DEFAULT_MATH})
        survey(handle, s, batch, format, math, x, w, y, workspace, workspace_bytes);
    cudaFree(x);
    cudaFree(y);
    cudaFree(w);
  }
  cudaFree(workspace);
  cudnnDestroy(handle);
  return 0;
}
