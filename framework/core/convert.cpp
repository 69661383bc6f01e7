#include "kiln/framework/core/convert.h"

#include <cstring>

namespace kiln {

void convert_buffer(const void* src, DType src_dtype, void* dst, DType dst_dtype, size_t n) {
  if (n == 0) return;  // empty tensors may have no storage: memcpy must not see null
  if (src_dtype == dst_dtype) {
    std::memcpy(dst, src, n * dtype_size(src_dtype));
    return;
  }
  visit_dtype(src_dtype, [&]<typename From>() {
    visit_dtype(dst_dtype, [&]<typename To>() {
      const From* s = static_cast<const From*>(src);
      To* d = static_cast<To*>(dst);
#pragma omp parallel for schedule(static) if (n > (1u << 16))
      for (size_t i = 0; i < n; ++i) d[i] = convert_value<To>(s[i]);
    });
  });
}

}  // namespace kiln
