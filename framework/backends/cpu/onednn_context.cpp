#include "kiln/framework/backends/cpu/onednn_context.h"

namespace kiln::cpu {

dnnl::engine& onednn_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

bool onednn_has_bf16() {
  static const bool has = [] {
    using dnnl::memory;
    const memory::desc one({1, 1, 1}, memory::data_type::bf16, memory::dims{1, 1, 1});
    try {
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(one, one, one), onednn_engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

}  // namespace kiln::cpu
