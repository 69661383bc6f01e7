#include "kiln/framework/random/random.h"

#include <cmath>
#include <numbers>

#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/random/philox.h"

namespace kiln::random {
namespace {

// Element i of draw `stream` with retry `attempt` (for rejection sampling) is one Philox block.
PhiloxBlock block_for(const Generator& gen, uint64_t stream, int64_t i, uint32_t attempt) {
  const auto idx = static_cast<uint64_t>(i);
  return philox4x32({static_cast<uint32_t>(idx), static_cast<uint32_t>(idx >> 32),
                     static_cast<uint32_t>(stream), attempt ^ static_cast<uint32_t>(stream >> 32)},
                    {static_cast<uint32_t>(gen.seed()), static_cast<uint32_t>(gen.seed() >> 32)});
}

double standard_normal(const PhiloxBlock& b) {
  // Box-Muller; 1 - u keeps the log argument in (0, 1].
  const double u1 = 1.0 - uniform01(b[0], b[1]);
  const double u2 = uniform01(b[2], b[3]);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Fills a host tensor with sample(i) converted to dtype, then moves it to the device.
template <typename Sample>
Tensor generate(const Shape& shape, DType dtype, Device device, Sample sample) {
  KILN_CHECK(shape.is_fully_defined(), "random tensors need a known shape, got ", shape);
  Tensor host = Tensor::empty(shape, dtype, Device::cpu());
  visit_dtype(dtype, [&]<typename T>() {
    T* p = host.data<T>();
    cpu::parallel_for(host.numel(), 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = convert_value<T>(sample(i));
    });
  });
  return host.to(device);
}

}  // namespace

Generator& default_generator() {
  static Generator gen(0);
  return gen;
}

void set_seed(uint64_t seed) {
  default_generator().set_state(seed, 0);
}

Tensor uniform(const Shape& shape, double minval, double maxval, DType dtype, Generator& gen,
               Device device) {
  KILN_CHECK(is_floating(dtype), "random::uniform: dtype must be floating, got ",
             dtype_name(dtype));
  const uint64_t stream = gen.next_stream();
  return generate(shape, dtype, device, [&](int64_t i) {
    const PhiloxBlock b = block_for(gen, stream, i, 0);
    return minval + (maxval - minval) * uniform01(b[0], b[1]);
  });
}

Tensor normal(const Shape& shape, double mean, double stddev, DType dtype, Generator& gen,
              Device device) {
  KILN_CHECK(is_floating(dtype), "random::normal: dtype must be floating, got ", dtype_name(dtype));
  const uint64_t stream = gen.next_stream();
  return generate(shape, dtype, device, [&](int64_t i) {
    return mean + stddev * standard_normal(block_for(gen, stream, i, 0));
  });
}

Tensor truncated_normal(const Shape& shape, double mean, double stddev, DType dtype, Generator& gen,
                        Device device) {
  KILN_CHECK(is_floating(dtype), "random::truncated_normal: dtype must be floating, got ",
             dtype_name(dtype));
  const uint64_t stream = gen.next_stream();
  return generate(shape, dtype, device, [&](int64_t i) {
    for (uint32_t attempt = 0;; ++attempt) {
      const double z = standard_normal(block_for(gen, stream, i, attempt));
      if (std::abs(z) <= 2.0) return mean + stddev * z;
    }
  });
}

Tensor bernoulli(const Shape& shape, double p, Generator& gen, Device device) {
  KILN_CHECK(p >= 0 && p <= 1, "random::bernoulli: p must be in [0, 1], got ", p);
  const uint64_t stream = gen.next_stream();
  return generate(shape, DType::boolean, device, [&](int64_t i) {
    const PhiloxBlock b = block_for(gen, stream, i, 0);
    return uniform01(b[0], b[1]) < p;
  });
}

}  // namespace kiln::random
