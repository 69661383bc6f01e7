#pragma once
// For code that queues work on a stream of its own (the NCCL communicator's) reading or writing
// tensors the compute stream also uses.
#include <cuda_runtime_api.h>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::cuda {

// The work queued so far on `stream` uses `t` (concrete, on a GPU): when its storage is freed,
// the caching allocator hands the memory out again only after that work has completed. Views
// share the storage's block, so any of them will do.
void record_stream(const Tensor& t, cudaStream_t stream);

}  // namespace kiln::cuda
