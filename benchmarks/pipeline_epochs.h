#pragma once
// What the input-pipeline benchmarks (images/, text/) print: each epoch of `pipeline` run to its
// end by a consumer that only takes batches, with its seconds and `unit`s (rows of component 0)
// per second. benchmarks/*/compare.sh read these lines.
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "kiln/datasets/dataset.h"

namespace kiln::bench {

inline void time_epochs(const datasets::Dataset& pipeline, int epochs, const char* unit) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    int64_t count = 0;
    for (const datasets::Element& batch : pipeline) count += batch[0].dim(0);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("epoch %d: %lld %s, %.3f s, %.1f %s/s\n", epoch, static_cast<long long>(count),
                unit, seconds, static_cast<double>(count) / seconds, unit);
  }
}

}  // namespace kiln::bench
