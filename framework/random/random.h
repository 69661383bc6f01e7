#pragma once
// Seeded random tensors. A Generator is a seed plus a count of draws: each draw uses a fresh
// Philox stream, so the same seed gives the same tensors in the same order on any thread count.
#include <cstdint>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::random {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}
  uint64_t seed() const { return seed_; }
  // The stream id of the next draw; advances the generator.
  uint64_t next_stream() { return draws_++; }
  uint64_t draws() const { return draws_; }
  void set_state(uint64_t seed, uint64_t draws) {
    seed_ = seed;
    draws_ = draws;
  }

 private:
  uint64_t seed_;
  uint64_t draws_ = 0;
};

// The process-wide generator used when none is passed; set_seed resets it
// (keras.utils.set_random_seed).
Generator& default_generator();
void set_seed(uint64_t seed);

Tensor uniform(const Shape& shape, double minval = 0, double maxval = 1, DType dtype = DType::f32,
               Generator& gen = default_generator(), Device device = default_device());
Tensor normal(const Shape& shape, double mean = 0, double stddev = 1, DType dtype = DType::f32,
              Generator& gen = default_generator(), Device device = default_device());
// Normal values redrawn until within two standard deviations (Keras TruncatedNormal).
Tensor truncated_normal(const Shape& shape, double mean = 0, double stddev = 1,
                        DType dtype = DType::f32, Generator& gen = default_generator(),
                        Device device = default_device());
// bool tensor, true with probability p (dropout masks).
Tensor bernoulli(const Shape& shape, double p, Generator& gen = default_generator(),
                 Device device = default_device());

}  // namespace kiln::random
