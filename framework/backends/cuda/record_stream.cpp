#include "kiln/framework/backends/cuda/record_stream.h"

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/backends/cuda/caching_allocator.h"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {

void record_stream(const Tensor& t, cudaStream_t stream) {
  KILN_CHECK(t.device().is_cuda() && !t.is_symbolic(), "record_stream: ", t.device(),
             t.is_symbolic() ? " symbolic" : "", " tensor, not one with memory on a GPU");
  Allocator& allocator = backend_for(t.device()).allocator(t.device().index);
  auto* caching = dynamic_cast<CachingAllocator*>(&allocator);
  KILN_CHECK(caching != nullptr, "record_stream: ", t.device(),
             "'s memory does not come from the CUDA backend's caching allocator");
  // The block the allocator handed out starts the storage; the tensor may be a view inside it.
  caching->record_stream(t.impl()->storage->data(), stream);
}

}  // namespace kiln::cuda
