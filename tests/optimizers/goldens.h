#pragma once
// Keras's optimizer trajectories, schedules and default configs
// (scripts/golden/generate_optimizer_goldens.py), and helpers to replay them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln::optimizers::testing {

struct TrajectoryGolden {
  const char* name;
  const char* keras_config;                 // keras.optimizers.serialize, before the first step
  std::vector<std::string> variable_paths;  // optimizer.variables after the steps, in order
  std::vector<std::vector<double>> kernel;  // dense/kernel after each step
  std::vector<std::vector<double>> bias;    // bias after each step
};

struct ScheduleGolden {
  const char* name;
  const char* keras_config;  // keras.optimizers.schedules.serialize
  std::vector<double> steps;
  std::vector<double> rates;
};

struct DefaultConfigGolden {
  const char* identifier;    // what keras.optimizers.get was given
  const char* keras_config;  // keras.optimizers.serialize of the result
};

#include "tests/optimizers/optimizer_goldens.inc"

// The variables every trajectory starts from, named as in the generator.
struct Weights {
  Variable kernel{from_vector(kInitialKernel, {2, 3}, DType::f32), "dense/kernel"};
  Variable bias{from_vector(kInitialBias, {3}, DType::f32), "bias"};
  std::vector<Variable> list() const { return {kernel, bias}; }
};

// The gradients of step `step` (0-based), in Weights::list() order.
inline std::vector<Tensor> gradients_at(size_t step) {
  return {from_vector(kKernelGradients[step], {2, 3}, DType::f32),
          from_vector(kBiasGradients[step], {3}, DType::f32)};
}

// Keras's serialized form without its "module" and "registered_name" keys, which kiln's
// serialize does not write: the form serialize(...) must equal.
inline Config without_keras_module_keys(Config config) {
  if (config.is_map()) {
    config.erase("module");
    config.erase("registered_name");
    for (auto& [key, value] : config.as_map()) value = without_keras_module_keys(value);
  }
  return config;
}

// |got - want| <= rtol * |want| element by element (with a floor for values near zero).
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want,
                         double rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rtol * std::max(std::abs(want[i]), 1e-2))
        << what << " element " << i;
}

}  // namespace kiln::optimizers::testing
