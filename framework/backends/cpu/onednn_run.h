#pragma once
// What the oneDNN kernels share beyond the engine: wrapping tensors without copies and running a
// primitive to completion.
#include <cstdint>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "kiln/framework/backends/cpu/onednn_context.h"
#include "kiln/framework/backends/cpu/prepared_call.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cpu {

// The oneDNN data type of a float32 or bfloat16 tensor.
inline dnnl::memory::data_type onednn_type(DType d) {
  return d == DType::bf16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

// Whether no operand is empty: oneDNN rejects a convolution with zero channels (whose output is
// all zeros), so empty operands take the reference loops.
inline bool every_input_has_data(const KernelContext& c) {
  for (const Tensor& t : c.inputs) {
    if (t.numel() == 0) return false;
  }
  return true;
}

// Whether a convolution or pooling call goes to oneDNN as it is: float32, or bfloat16 where
// oneDNN has it, with data in every operand. bfloat16 elsewhere runs on float32 copies
// (run_widened_bf16); the reference loops take float64 (gradient checks need it).
inline bool onednn_takes(const KernelContext& c) {
  const DType d = c.output.dtype();
  return (d == DType::f32 || (d == DType::bf16 && onednn_has_bf16())) && every_input_has_data(c);
}

// Whether a call runs on float32 copies: bfloat16 with data in every operand where oneDNN has no
// bfloat16.
inline bool onednn_widens(const KernelContext& c) {
  return c.output.dtype() == DType::bf16 && !onednn_has_bf16() && every_input_has_data(c);
}

// An NHWC activation; oneDNN lists the dims in NCHW order whatever the layout.
inline dnnl::memory::desc onednn_nhwc(int64_t n, int64_t c, int64_t h, int64_t w, DType d) {
  return dnnl::memory::desc({n, c, h, w}, onednn_type(d), dnnl::memory::format_tag::nhwc);
}

// t's data described by desc, used in place.
inline dnnl::memory onednn_memory(const dnnl::memory::desc& desc, const Tensor& t) {
  return dnnl::memory(desc, onednn_engine(), t.raw_data());
}

// A memory object for desc whose data pointer is set per run (set_data_handle): made once per
// prepared step instead of per call.
inline dnnl::memory onednn_unbound(const dnnl::memory::desc& desc) {
  return dnnl::memory(desc, onednn_engine(), DNNL_MEMORY_NONE);
}

inline void onednn_point(dnnl::memory& m, const Tensor& t) {
  m.set_data_handle(t.raw_data());
}

// Primitives come from process-wide caches and threads run them at once (MirroredStrategy's
// replicas, a recurrent layer's row blocks): each run brings its own scratchpad
// (onednn_scratchpad, made with the call's memory objects), so two runs never share oneDNN's.
inline dnnl::primitive_attr onednn_own_scratchpad(dnnl::primitive_attr attr = {}) {
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

inline dnnl::memory onednn_scratchpad(const dnnl::memory::desc& desc) {
  return dnnl::memory(desc, onednn_engine());
}

// Runs p on this thread's stream and waits, so the output is complete when the kernel returns.
inline void onednn_execute(const dnnl::primitive& p,
                           const std::unordered_map<int, dnnl::memory>& args) {
  p.execute(onednn_stream(), args);
  onednn_stream().wait();
}

}  // namespace kiln::cpu
