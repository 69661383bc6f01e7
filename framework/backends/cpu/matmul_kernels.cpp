// matmul, and matmul_bias_activation (a Dense layer's product with its bias and relu as oneDNN's
// epilogue), on oneDNN for float32 and bfloat16 (where oneDNN has no bfloat16 matmul for this
// processor, on float32 copies); the reference loops for other dtypes.
#include <oneapi/dnnl/dnnl.h>

#include <cstring>
#include <vector>

#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/onednn_run.h"
#include "kiln/framework/backends/cpu/reference/reference.h"
#include "kiln/framework/backends/cpu/widened_bf16.h"

namespace kiln::cpu {
namespace {

using dnnl::memory;

// The operand descs are kept with the primitive: rebuilding them on every call took a fifth of
// a 16x16 matmul's time.
struct MatmulEntry {
  memory::desc a, b, c, bias;  // bias: zero desc without one
  dnnl::matmul primitive;
  memory::desc scratchpad;
};

PrimitiveCache<MatmulEntry>& matmul_cache() {
  static PrimitiveCache<MatmulEntry> cache;
  return cache;
}

// A [batch, rows, cols] operand stored transposed or not.
memory::desc operand_desc(int64_t batch, int64_t rows, int64_t cols, bool transposed, DType d) {
  const memory::dims dims{batch, rows, cols};
  const memory::dims strides =
      transposed ? memory::dims{rows * cols, 1, rows} : memory::dims{rows * cols, cols, 1};
  return memory::desc(dims, onednn_type(d), strides);
}

// The problem sizes of a matmul and which path runs it.
struct MatmulShape {
  bool biased, relu;  // matmul_bias_activation's epilogue
  bool ta, tb;
  DType dtype;
  int64_t m, n, k, batch, a_batch, b_batch;

  explicit MatmulShape(const KernelContext& c)
      : biased(c.inputs.size() == 3),
        relu(biased && c.attrs.get(attr::relu)),
        ta(c.attrs.get(attr::transpose_a)),
        tb(c.attrs.get(attr::transpose_b)),
        dtype(c.output.dtype()),
        m(c.output.dim(-2)),
        n(c.output.dim(-1)),
        k(ta ? c.inputs[0].dim(-2) : c.inputs[0].dim(-1)),
        batch(matrices(c.output)),
        a_batch(matrices(c.inputs[0])),
        b_batch(matrices(c.inputs[1])) {}

  // How many matrices `t` holds: the product of its dims before the last two (also when a
  // matrix is empty).
  static int64_t matrices(const Tensor& t) {
    int64_t count = 1;
    for (int axis = 0; axis + 2 < t.rank(); ++axis) count *= t.dim(axis);
    return count;
  }

  bool uses_reference() const { return dtype != DType::f32 && dtype != DType::bf16; }
  bool widens_bf16() const { return dtype == DType::bf16 && !onednn_has_bf16(); }
  // An eager call (outside a planned step) makes the primitive's memory objects for itself, a
  // fixed cost per call that is most of a small layer's time; there one float32 GEMM (no batch,
  // or a batch folded into the rows of an untransposed a against a shared b) goes straight to
  // dnnl_sgemm, as fast on a layer's sizes. Planned steps bind the memory objects once and always
  // take the primitive (prepare_matmul). Folded batches of many rows (a projection of every step
  // of a sequence batch) take the primitive, which is faster there. A transposed b (a Dense
  // layer's input gradient, g W^T) takes the primitive unless the product is tiny: sgemm runs it
  // below its untransposed rate, the primitive at full rate, while on tiny products the
  // primitive's fixed cost dominates (docs/framework.md, "Measured choices").
  bool uses_sgemm() const {
    constexpr int64_t kPrimitiveRows = 8192;
    constexpr int64_t kPrimitiveTransposedMacs = int64_t{1} << 21;
    const bool folds_into_rows = b_batch == 1 && !ta && a_batch == batch;
    const bool small_enough = !tb || batch * m * n * k < kPrimitiveTransposedMacs;
    return dtype == DType::f32 && small_enough &&
           (batch == 1 || (folds_into_rows && batch * m < kPrimitiveRows));
  }
};

// The primitive path (bfloat16, planned float32, batched or transposed float32, the fused bias)
// bound to its shapes: the cached primitive and memory objects for a, b, the output and the bias,
// made once.
class MatmulCall {
 public:
  explicit MatmulCall(const KernelContext& c)
      : entry_(entry(MatmulShape(c))),
        a_(onednn_unbound(entry_.a)),
        b_(onednn_unbound(entry_.b)),
        out_(onednn_unbound(entry_.c)),
        bias_(onednn_unbound(entry_.bias)),
        args_{{DNNL_ARG_SRC, a_},
              {DNNL_ARG_WEIGHTS, b_},
              {DNNL_ARG_DST, out_},
              {DNNL_ARG_SCRATCHPAD, onednn_scratchpad(entry_.scratchpad)}} {
    if (c.inputs.size() == 3) args_.emplace(DNNL_ARG_BIAS, bias_);
  }

  void run(const KernelContext& c) {
    onednn_point(a_, c.inputs[0]);
    onednn_point(b_, c.inputs[1]);
    onednn_point(out_, c.output);
    if (c.inputs.size() == 3) onednn_point(bias_, c.inputs[2]);
    onednn_execute(entry_.primitive, args_);
  }

 private:
  static const MatmulEntry& entry(const MatmulShape& s) {
    const PrimitiveKey key{{s.a_batch, s.b_batch, s.batch, s.m, s.n, s.k, s.ta, s.tb,
                            static_cast<int64_t>(s.dtype), s.biased, s.relu}};
    return matmul_cache().get(key, [&] {
      MatmulEntry e;
      e.a = operand_desc(s.a_batch, s.m, s.k, s.ta, s.dtype);
      e.b = operand_desc(s.b_batch, s.k, s.n, s.tb, s.dtype);
      e.c = operand_desc(s.batch, s.m, s.n, false, s.dtype);
      dnnl::post_ops post_ops;
      if (s.relu) post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      dnnl::primitive_attr attr;
      attr.set_post_ops(post_ops);
      if (s.biased) e.bias = operand_desc(1, 1, s.n, false, s.dtype);
      const dnnl::matmul::primitive_desc pd(
          s.biased ? dnnl::matmul::desc(e.a, e.b, e.bias, e.c) : dnnl::matmul::desc(e.a, e.b, e.c),
          onednn_own_scratchpad(attr), onednn_engine());
      e.primitive = dnnl::matmul(pd);
      e.scratchpad = pd.scratchpad_desc();
      return e;
    });
  }

  const MatmulEntry& entry_;
  memory a_, b_, out_, bias_;
  std::unordered_map<int, memory> args_;
};

void matmul_kernel(const KernelContext& c) {
  const MatmulShape s(c);
  if (s.k == 0) {
    // A sum over an empty inner dimension (an empty batch's weight gradient): zeros, which
    // neither sgemm nor the primitive writes.
    std::memset(c.output.raw_data(), 0, c.output.nbytes());
  } else if (s.widens_bf16()) {
    // matmul_bench under ONEDNN_MAX_CPU_ISA=AVX2: the MLP step's large GEMMs 25x faster than
    // the reference loop, at 1.3-2.3x float32's time (the copies).
    run_widened_bf16(c, matmul_kernel);
  } else if (s.uses_reference()) {
    reference::matmul(c.inputs[0], c.inputs[1], c.output, s.ta, s.tb);
  } else if (s.uses_sgemm()) {
    const dnnl_status_t status =
        dnnl_sgemm(s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', s.batch * s.m, s.n, s.k, 1.0f,
                   c.inputs[0].data<float>(), s.ta ? s.m : s.k, c.inputs[1].data<float>(),
                   s.tb ? s.k : s.n, 0.0f, c.output.data<float>(), s.n);
    KILN_CHECK(status == dnnl_success, "kiln::ops::matmul: dnnl_sgemm failed with status ",
               static_cast<int>(status));
  } else {
    MatmulCall(c).run(c);
  }
}

// A planned float32 matmul takes the primitive whatever its shape: bound once, it has no fixed
// cost left, and in the MLP's step sgemm's GEMMs also slowed the Adam updates after them by half
// (docs/framework.md, "Measured choices").
std::unique_ptr<PreparedKernel> prepare_matmul(const KernelContext& c) {
  const MatmulShape s(c);
  if (s.k == 0 || s.widens_bf16() || s.uses_reference()) return nullptr;
  return std::make_unique<PreparedCall<MatmulCall>>(c);
}

// The product, its bias and relu: oneDNN's epilogue as it stores each output block. The
// reference loops (and an empty inner dimension, whose product is zeros) add the bias after.
void matmul_bias_activation_kernel(const KernelContext& c) {
  const MatmulShape s(c);
  if (s.widens_bf16()) {
    run_widened_bf16(c, matmul_bias_activation_kernel);
  } else if (s.k == 0 || s.uses_reference()) {
    if (s.k == 0)
      std::memset(c.output.raw_data(), 0, c.output.nbytes());
    else
      reference::matmul(c.inputs[0], c.inputs[1], c.output, false, false);
    reference::add_channel_bias(c.output, c.inputs[2], s.relu);
  } else {
    MatmulCall(c).run(c);
  }
}

}  // namespace

void register_matmul_kernels(OpTable& t) {
  t.set_kernel(OpId::matmul, DeviceType::cpu, matmul_kernel);
  t.set_prepare(OpId::matmul, DeviceType::cpu, prepare_matmul);
  t.set_kernel(OpId::matmul_bias_activation, DeviceType::cpu, matmul_bias_activation_kernel);
  t.set_prepare(OpId::matmul_bias_activation, DeviceType::cpu, prepare_matmul);
}

}  // namespace kiln::cpu
