#pragma once
// Keras's SeedGenerator: the seed of a layer's stateless random ops, in a variable that advances
// on every draw, so a traced step gets fresh randomness per call without retracing and a run is
// reproducible from kiln::random::set_seed.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/framework/tensor/variable.h"

namespace kiln::layers {

class SeedGenerator {
 public:
  // Without a seed, one is drawn from the process generator (random::set_seed fixes it).
  explicit SeedGenerator(std::optional<int64_t> seed = std::nullopt, const std::string& name = "");

  // The next int64[2] seed for ops::random_uniform_like; advances the state (eager or traced).
  Tensor next() const;
  const Variable& state() const { return state_; }

 private:
  Variable state_;
};

}  // namespace kiln::layers
