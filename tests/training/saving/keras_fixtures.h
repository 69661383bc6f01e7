#pragma once
// The fixture files of the Keras interop tests (data/*.expected.h5, data/keras_models/): a
// model's inputs x0, x1, ... and its predictions y0, y1, ..., and the check that a model
// predicts them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kiln/training/saving/h5_file.h"

namespace kiln::saving::testing_fixtures {

inline const std::string kData = std::string(KILN_TESTS_DIR) + "/training/saving/data/";

// "x0", "y1", ...: the dataset names of the inputs and outputs.
inline std::string numbered(char prefix, size_t i) {
  std::string name = std::to_string(i);
  name.insert(name.begin(), prefix);
  return name;
}

struct Predictions {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

inline Predictions read_predictions(const H5Group& root) {
  Predictions p;
  for (size_t i = 0; root.has(numbered('x', i)); ++i)
    p.inputs.push_back(root.read(numbered('x', i)));
  for (size_t i = 0; root.has(numbered('y', i)); ++i)
    p.outputs.push_back(root.read(numbered('y', i)));
  return p;
}

// Each output within 1e-5 (relative to the value, past 1) of the expected one.
inline void expect_near(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].shape(), want[o].shape()) << what << " output " << o;
    const std::vector<float> g = got[o].to_vector<float>(), w = want[o].to_vector<float>();
    for (size_t i = 0; i < g.size(); ++i)
      ASSERT_NEAR(g[i], w[i], 1e-5 * (1 + std::abs(w[i])))
          << what << " output " << o << " at " << i;
  }
}

}  // namespace kiln::saving::testing_fixtures
