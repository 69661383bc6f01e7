# KILN_WITH_CUDA defaults to ON when nvcc can be found (on PATH or under /usr/local/cuda).
find_program(KILN_NVCC nvcc HINTS /usr/local/cuda/bin)
if(KILN_NVCC)
  set(_kiln_cuda_default ON)
else()
  set(_kiln_cuda_default OFF)
endif()
option(KILN_WITH_CUDA "Build the CUDA backend (cuBLAS, own kernels)" ${_kiln_cuda_default})

if(KILN_WITH_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_COMPILER ${KILN_NVCC})
  endif()
  # H100/H200 (sm_90) as machine code, plus compute_90 PTX so newer GPUs can JIT it.
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90-real 90-virtual)
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know nvcc's C++20 flag yet.
  if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION -std=c++20)
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION -std=c++20)
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
  # cuDNN (convolutions): beside the toolkit's libraries or in the system's.
  find_library(KILN_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
  find_path(KILN_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
  # NCCL: the communicator of data-parallel training on GPUs (framework/distributed/nccl.h).
  find_library(KILN_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
  find_path(KILN_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
endif()
