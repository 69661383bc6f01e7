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
  int n = 0;
  {
    std::vector<cudnnConvolutionFwdAlgoPerf_t> ranked(CUDNN_CONVOLUTION_FWD_ALGO_COUNT),
        timed(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    check(cudnnGetConvolutionForwardAlgorithm_v7(handle, xd, wd, cd, yd, ranked.size(), &n,
                                                 ranked.data()),
          "forward heuristics");
    ranked.resize(n);
    check(cudnnFindConvolutionForwardAlgorithmEx(handle, xd, x, wd, w, cd, yd, y, timed.size(), &n,
                                                 timed.data(), workspace, workspace_bytes),
          "forward find");
    timed.resize(n);
    report(s.name, "forward", layout, math, ranked, timed, forward_allowed);
  }
  {
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> ranked(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT),
        timed(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    check(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, wd, yd, cd, xd, ranked.size(), &n,
                                                      ranked.data()),
          "data heuristics");
    ranked.resize(n);
    check(cudnnFindConvolutionBackwardDataAlgorithmEx(handle, wd, w, yd, y, cd, xd, x, timed.size(),
                                                      &n, timed.data(), workspace, workspace_bytes),
          "data find");
    timed.resize(n);
    report(s.name, "backward_data", layout, math, ranked, timed, data_allowed);
  }
  {
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> ranked(
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT),
        timed(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
    check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, xd, yd, cd, wd, ranked.size(), &n,
                                                        ranked.data()),
          "filter heuristics");
    ranked.resize(n);
    check(
        cudnnFindConvolutionBackwardFilterAlgorithmEx(handle, xd, x, yd, y, cd, wd, w, timed.size(),
                                                      &n, timed.data(), workspace, workspace_bytes),
        "filter find");
    timed.resize(n);
    report(s.name, "backward_filter", layout, math, ranked, timed, filter_allowed);
  }
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
