#include "kiln/framework/backends/cpu/tiled_max_pool.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kiln/framework/backends/cpu/isa_dispatch.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/backends/cpu/window_geometry.h"
#include "kiln/framework/ops/pool_argmax_limit.h"

namespace kiln::cpu {
namespace {

bool tiles(const PoolGeometry& g) {
  const auto tiled = [](const WindowAxis& a) {
    return a.stride == a.kernel && a.pad_before == 0 && a.pad_after == 0;
  };
  return tiled(g.h) && tiled(g.w) && g.h.kernel * g.w.kernel <= kMaxArgmaxWindowCells;
}

}  // namespace

bool tiled_max_pool_applies(const KernelContext& c) {
  // The pooled input: x of the forward op, the gradient dx of the backward one.
  const Tensor& input = c.inputs.size() == 1 ? c.inputs[0] : c.output;
  return input.dtype() == DType::f32 && input.device().is_cpu() &&
         tiles(pool_geometry(input.shape(), c.attrs));
}

void tiled_max_pool_with_argmax(const KernelContext& c) {
  const PoolGeometry g = pool_geometry(c.inputs[0].shape(), c.attrs);
  const float* x = c.inputs[0].data<float>();
  float* out = c.output.data<float>();
  uint8_t* argmax = c.more_outputs.empty() || !c.more_outputs[0].defined()
                        ? nullptr
                        : c.more_outputs[0].data<uint8_t>();
  const int64_t channels = g.channels, kh = g.h.kernel, kw = g.w.kernel;
  const int64_t rows = g.batch * g.h.out;  // output rows (n, oh)
  const CpuIsa isa = cpu_isa();
  // Rows of about kParallelGrain input values each: small pools stay on one thread.
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (kh * g.w.in * channels));
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    run_at_isa(isa, [&] {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t n = r / g.h.out, oh = r % g.h.out;
        for (int64_t ow = 0; ow < g.w.out; ++ow) {
          const int64_t o = (r * g.w.out + ow) * channels;
          float* best = out + o;
          uint8_t* tap = argmax == nullptr ? nullptr : argmax + o;
          for (int64_t t = 0; t < kh * kw; ++t) {
            const int64_t ih = oh * kh + t / kw, iw = ow * kw + t % kw;
            const float* v = x + ((n * g.h.in + ih) * g.w.in + iw) * channels;
            if (t == 0) {
              std::memcpy(best, v, static_cast<size_t>(channels) * sizeof(float));
              if (tap != nullptr) std::memset(tap, 0, static_cast<size_t>(channels));
              continue;
            }
            const auto position = static_cast<uint8_t>(t);
            if (tap != nullptr) {
#pragma omp simd
              for (int64_t k = 0; k < channels; ++k) {
                const bool larger = v[k] > best[k];
                best[k] = larger ? v[k] : best[k];
                tap[k] = larger ? position : tap[k];
              }
            } else {
#pragma omp simd
              for (int64_t k = 0; k < channels; ++k) best[k] = v[k] > best[k] ? v[k] : best[k];
            }
          }
        }
      }
    });
  });
}

void tiled_max_pool_grad_from_argmax(const KernelContext& c) {
  const PoolGeometry g = pool_geometry(c.output.shape(), c.attrs);
  const uint8_t* argmax = c.inputs[0].data<uint8_t>();
  const float* grad = c.inputs[1].data<float>();
  float* dx = c.output.data<float>();
  const int64_t channels = g.channels, kh = g.h.kernel, kw = g.w.kernel;
  const int64_t in_rows = g.batch * g.h.in;  // input rows (n, ih)
  const CpuIsa isa = cpu_isa();
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (g.w.in * channels));
  parallel_for(in_rows, grain, [&](int64_t begin, int64_t end) {
    run_at_isa(isa, [&] {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t n = r / g.h.in, ih = r % g.h.in, oh = ih / kh;
        float* row = dx + r * g.w.in * channels;
        // Rows and columns past the last whole window belong to no window.
        const int64_t covered = oh < g.h.out ? g.w.out * kw : 0;
        std::memset(row + covered * channels, 0,
                    static_cast<size_t>((g.w.in - covered) * channels) * sizeof(float));
        for (int64_t iw = 0; iw < covered; ++iw) {
          const int64_t ow = iw / kw;
          const auto position = static_cast<uint8_t>((ih % kh) * kw + iw % kw);
          const int64_t o = ((n * g.h.out + oh) * g.w.out + ow) * channels;
          const uint8_t* tap = argmax + o;
          const float* g_out = grad + o;
          float* cell = row + iw * channels;
#pragma omp simd
          for (int64_t k = 0; k < channels; ++k) cell[k] = tap[k] == position ? g_out[k] : 0.0f;
        }
      }
    });
  });
}

}  // namespace kiln::cpu
