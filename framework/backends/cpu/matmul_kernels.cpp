// matmul on oneDNN for float32 and bfloat16; the reference loop for other dtypes.
#include <oneapi/dnnl/dnnl.h>

#include "framework/backends/cpu/cpu_kernels.h"
#include "framework/backends/cpu/onednn_run.h"
#include "framework/backends/cpu/reference/reference.h"

namespace kiln::cpu {
namespace {

using dnnl::memory;

// The operand descs are kept with the primitive: rebuilding them on every call took a fifth of
// a 16x16 matmul's time.
struct MatmulEntry {
  memory::desc a, b, c;
  dnnl::matmul primitive;
};

PrimitiveCache<MatmulEntry>& matmul_cache() {
  static PrimitiveCache<MatmulEntry> cache;
  return cache;
}

memory::data_type onednn_type(DType d) {
  return d == DType::bf16 ? memory::data_type::bf16 : memory::data_type::f32;
}

// A [batch, rows, cols] operand stored transposed or not.
memory::desc operand_desc(int64_t batch, int64_t rows, int64_t cols, bool transposed, DType d) {
  const memory::dims dims{batch, rows, cols};
  const memory::dims strides =
      transposed ? memory::dims{rows * cols, 1, rows} : memory::dims{rows * cols, cols, 1};
  return memory::desc(dims, onednn_type(d), strides);
}

void matmul_kernel(const KernelContext& c) {
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const bool ta = c.attrs.get_bool("transpose_a");
  const bool tb = c.attrs.get_bool("transpose_b");
  const DType dtype = c.output.dtype();
  if (dtype != DType::f32 && dtype != DType::bf16) {
    reference::matmul(a, b, c.output, ta, tb);
    return;
  }
  const int64_t m = c.output.dim(-2), n = c.output.dim(-1);
  const int64_t k = ta ? a.dim(-2) : a.dim(-1);
  const int64_t batch = c.output.numel() / (m * n);
  const int64_t a_batch = a.numel() / (m * k);
  const int64_t b_batch = b.numel() / (k * n);
  // One float32 GEMM (no batch, or a batch folded into the rows of an untransposed a against a
  // shared b) goes straight to dnnl_sgemm: the matmul primitive's per-call memory objects cost
  // ~1.5 us, most of a small layer's time, and sgemm is as fast at every size measured.
  const bool folds_into_rows = b_batch == 1 && !ta && a_batch == batch;
  if (dtype == DType::f32 && (batch == 1 || folds_into_rows)) {
    const dnnl_status_t status =
        dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', batch * m, n, k, 1.0f, a.data<float>(),
                   ta ? m : k, b.data<float>(), tb ? k : n, 0.0f, c.output.data<float>(), n);
    KILN_CHECK(status == dnnl_success, "kiln::ops::matmul: dnnl_sgemm failed with status ",
               static_cast<int>(status));
    return;
  }
  const PrimitiveKey key{{a_batch, b_batch, batch, m, n, k, ta, tb, static_cast<int64_t>(dtype)}};
  const MatmulEntry& entry = matmul_cache().get(key, [&] {
    MatmulEntry e;
    e.a = operand_desc(a_batch, m, k, ta, dtype);
    e.b = operand_desc(b_batch, k, n, tb, dtype);
    e.c = operand_desc(batch, m, n, false, dtype);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(e.a, e.b, e.c), onednn_engine());
    e.primitive = dnnl::matmul(pd);
    return e;
  });
  onednn_execute(entry.primitive, {{DNNL_ARG_SRC, onednn_memory(entry.a, a)},
                                   {DNNL_ARG_WEIGHTS, onednn_memory(entry.b, b)},
                                   {DNNL_ARG_DST, onednn_memory(entry.c, c.output)}});
}

}  // namespace

void register_matmul_kernels(OpTable& t) {
  t.set_kernel(OpId::matmul, DeviceType::cpu, matmul_kernel);
}

}  // namespace kiln::cpu
