#pragma once
// Setup shared by the benchmark programs. Kernels are timed the way the graph executor runs
// them in a planned step: into an output allocated once, outside the timed loop, through the
// op's prepared kernel where it has one.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/random/random.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::bench {

// float32 values in [-1, 1), so sign-dependent ops such as relu take both branches.
inline Tensor random_input(const Shape& shape) {
  return random::uniform(shape, -1.0, 1.0);
}

// Times the op's kernel on (inputs, out, attrs) as a planned step runs it: the prepared kernel
// where the op prepares one for these shapes (bound once), else run_kernel. The output is
// zero-filled first so its pages are mapped before timing, and one untimed run starts the thread
// pool and fills oneDNN's primitive cache. An op kiln cannot run (no kernel for it yet) marks
// the benchmark as skipped.
inline void time_kernel(benchmark::State& state, OpId op, const std::vector<Tensor>& inputs,
                        const Attrs& attrs) {
  std::vector<TensorMeta> metas;
  for (const Tensor& t : inputs) metas.push_back(t.meta());
  const TensorMeta out_meta = infer_meta(op, metas, attrs);
  const Tensor out = zeros(out_meta.shape, out_meta.dtype);
  const KernelContext context{inputs, out, attrs};
  const PrepareFn prepare = op_def(op).prepare[static_cast<size_t>(DeviceType::cpu)];
  std::unique_ptr<PreparedKernel> prepared;
  const auto run = [&] {
    if (prepared)
      prepared->run(context);
    else
      run_kernel(op, inputs, out, attrs);
  };
  try {
    if (prepare != nullptr) prepared = prepare(context);
    run();
  } catch (const Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) run();
}

// Reports flops per iteration as GFLOP/s (of wall time when the benchmark uses real time).
inline void set_gflops(benchmark::State& state, double flops) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace kiln::bench
