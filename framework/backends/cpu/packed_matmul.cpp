#include "kiln/framework/backends/cpu/packed_matmul.h"

#include "kiln/framework/backends/cpu/onednn_run.h"

namespace kiln::cpu {

using dnnl::memory;

namespace {

struct PackedEntry {
  memory::desc a, out;
  dnnl::matmul primitive;
  memory::desc b_layout;    // the primitive's
  memory::desc scratchpad;  // each PackedMatmul brings its own
};

// Primitives are shared by every run with the same sizes; the row count takes up to the batch
// size values, each made once per process.
const PackedEntry& packed_entry(int64_t m, int64_t k, int64_t n, int64_t lda) {
  static PrimitiveCache<PackedEntry> cache;
  return cache.get(PrimitiveKey{{m, k, n, lda}}, [&] {
    constexpr auto f32 = memory::data_type::f32;
    PackedEntry e;
    e.a = memory::desc({m, k}, f32, memory::dims{lda, 1});
    e.out = memory::desc({m, n}, f32, memory::format_tag::ab);
    const memory::desc any({k, n}, f32, memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(e.a, any, e.out),
                                          onednn_own_scratchpad(), onednn_engine());
    e.primitive = dnnl::matmul(pd);
    e.b_layout = pd.weights_desc();
    e.scratchpad = pd.scratchpad_desc();
    return e;
  });
}

}  // namespace

// One (m, lda): the cached primitive with memory objects for a and out, re-pointed per call.
struct PackedMatmul::Bound {
  const PackedEntry& entry;
  memory a, out, scratchpad;
  std::unordered_map<int, memory> args;
};

PackedMatmul::PackedMatmul(const float* b, int64_t k, int64_t n, bool transpose_b)
    : k_(k),
      n_(n),
      user_b_(memory::desc({k, n}, memory::data_type::f32,
                           transpose_b ? memory::format_tag::ba : memory::format_tag::ab),
              onednn_engine(), const_cast<float*>(b)) {}

PackedMatmul::~PackedMatmul() = default;

const memory& PackedMatmul::packed(const memory::desc& layout) {
  for (const auto& [desc, mem] : packed_)
    if (desc == layout) return mem;
  memory mem(layout, onednn_engine());
  onednn_execute(dnnl::reorder(user_b_, mem), {{DNNL_ARG_FROM, user_b_}, {DNNL_ARG_TO, mem}});
  packed_.emplace_back(layout, mem);
  return packed_.back().second;
}

PackedMatmul::Bound& PackedMatmul::bound(int64_t m, int64_t lda) {
  std::unique_ptr<Bound>& slot = bound_[{m, lda}];
  if (!slot) {
    const PackedEntry& e = packed_entry(m, k_, n_, lda);
    slot.reset(new Bound{
        e, onednn_unbound(e.a), onednn_unbound(e.out), memory(e.scratchpad, onednn_engine()), {}});
    slot->args = {{DNNL_ARG_SRC, slot->a},
                  {DNNL_ARG_WEIGHTS, packed(e.b_layout)},
                  {DNNL_ARG_DST, slot->out},
                  {DNNL_ARG_SCRATCHPAD, slot->scratchpad}};
  }
  return *slot;
}

void PackedMatmul::run(int64_t m, const float* a, int64_t lda, float* out) {
  if (m == 0) return;
  Bound& b = bound(m, lda);
  b.a.set_data_handle(const_cast<float*>(a));
  b.out.set_data_handle(out);
  onednn_execute(b.entry.primitive, b.args);
}

}  // namespace kiln::cpu
