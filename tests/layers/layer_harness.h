#pragma once
// The checks every layer passes (tests/layers/layer_harness_test.cpp runs them over
// layer_cases()): output shape and dtype against compute_output_spec with an unknown batch,
// weight counts, config round trip, one training step, and traced == eager with the batch dim
// unknown.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "kiln/framework/tensor/tensor.h"
#include "kiln/layers/layer.h"

namespace kiln::layers::testing {

// One input of a case, without the batch dim.
struct InputSpec {
  Shape sample_shape;
  DType dtype = DType::f32;
  int64_t id_range = 0;  // integer inputs: ids in [0, id_range)
};

struct LayerCase {
  std::string label;  // a test name: letters, digits and underscores
  std::function<LayerPtr()> make;
  std::vector<InputSpec> inputs;
  size_t trainable_weights = 0;
  size_t non_trainable_weights = 0;
  // Training outputs are random per call (Dropout): traced and eager training runs cannot be
  // compared value by value, and the loss is not comparable across a step.
  bool random_in_training = false;
};

// ctest shows the case's label, not its bytes.
inline void PrintTo(const LayerCase& c, std::ostream* os) {
  *os << c.label;
}

// Every case, at least one per registered layer class.
const std::vector<LayerCase>& layer_cases();

// Deterministic inputs of a case for a batch size; `salt` varies the values.
std::vector<Tensor> case_inputs(const LayerCase& c, int64_t batch, int salt = 0);

void check_output_spec(const LayerCase& c);
void check_weights(const LayerCase& c);
void check_config_round_trip(const LayerCase& c);
void check_training_step(const LayerCase& c);
void check_traced_equals_eager(const LayerCase& c);

// Shapes equal and |got - want| <= tol * (|want| + rms(want)) elementwise: relative, with the
// tensor's scale as the floor for elements that cancel to near zero.
void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what);

}  // namespace kiln::layers::testing
