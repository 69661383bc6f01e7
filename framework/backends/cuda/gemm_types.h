#pragma once
// cuBLAS's data and compute types for a kiln dtype, shared by every cuBLAS caller (matmul, the
// recurrent projections, the GEMM-based filter gradient): 16-bit floats accumulate in float32,
// as on the CPU; float32 runs on TF32 tensor cores only when the user enables them
// (framework/core/tensor_float_32.h).
#include <cublas_v2.h>

#include "kiln/framework/core/dtype.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/tensor_float_32.h"

namespace kiln::cuda {

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

// `op` names the caller in the error for a dtype cuBLAS does not take.
inline GemmTypes gemm_types(DType dtype, const char* op) {
  switch (dtype) {
    case DType::f32:
      return {CUDA_R_32F, tensor_float_32_execution_enabled() ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                              : CUBLAS_COMPUTE_32F};
    case DType::f64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case DType::f16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case DType::bf16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    default:
      break;
  }
  throw Error(detail::concat("kiln::ops::", op, ": no CUDA kernel for dtype ", dtype_name(dtype)));
}

// cuBLAS's alpha and beta: double for a float64 compute type, float otherwise.
struct GemmScalars {
  double alpha64, beta64;
  float alpha32, beta32;

  GemmScalars(double alpha, double beta)
      : alpha64(alpha),
        beta64(beta),
        alpha32(static_cast<float>(alpha)),
        beta32(static_cast<float>(beta)) {}
  const void* alpha(const GemmTypes& t) const {
    return t.compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha64) : &alpha32;
  }
  const void* beta(const GemmTypes& t) const {
    return t.compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta64) : &beta32;
  }
};

}  // namespace kiln::cuda
