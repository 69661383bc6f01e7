#pragma once
// The Keras reference cases of tests/losses/loss_goldens.inc (written by
// scripts/golden/generate_loss_goldens.py), and helpers that turn them into kiln tensors.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "kiln/framework/tensor/tensor.h"
#include "kiln/losses/loss.h"

namespace kiln::losses::testing {

struct GoldenResult {
  std::vector<double> loss;
  std::vector<double> grad;  // d sum(loss * upstream) / d y_pred
};

// A loss class from its serialized config, on one set of inputs.
struct LossGolden {
  const char* label;
  const char* config;       // JSON: {"class_name": ..., "config": {...}}
  const char* label_dtype;  // "float" (y_pred's dtype), "int32" or "int64"
  std::vector<int64_t> true_shape;
  std::vector<double> y_true;
  std::vector<int64_t> pred_shape;
  std::vector<double> y_pred;
  std::vector<int64_t> weight_shape;
  std::vector<double> sample_weight;  // none when empty
  std::vector<int64_t> mask_shape;
  std::vector<double> mask;  // 0/1; none when empty
  std::vector<int64_t> loss_shape;
  std::vector<double> upstream;
  GoldenResult f64;  // Keras computing in float64
  GoldenResult f32;  // and in float32
};

// ctest shows the case's label, not its bytes.
inline void PrintTo(const LossGolden& c, std::ostream* os) {
  *os << c.label;
}

// A loss function (keras.losses.<name>) with keyword arguments, in float64.
struct FunctionGolden {
  const char* name;
  const char* kwargs;  // JSON
  const char* label_dtype;
  std::vector<int64_t> true_shape;
  std::vector<double> y_true;
  std::vector<int64_t> pred_shape;
  std::vector<double> y_pred;
  std::vector<int64_t> loss_shape;
  std::vector<double> loss;
};

const std::vector<LossGolden>& loss_goldens();
const std::vector<FunctionGolden>& function_goldens();

// A case's inputs with y_pred (and float labels and weights) in `dtype`; undefined where absent.
struct GoldenInputs {
  Tensor y_true;
  Tensor y_pred;
  Tensor sample_weight;
  Tensor mask;  // bool
};
GoldenInputs golden_inputs(const LossGolden& golden, DType dtype);
LossPtr golden_loss(const LossGolden& golden);

// y_true of a case: float labels in `dtype`, integer labels in theirs.
Tensor golden_labels(const char* label_dtype, const std::vector<double>& values,
                     const std::vector<int64_t>& shape, DType dtype);

// A test name from a case's label ("bce from_logits, sum" -> "bce_from_logits_sum").
std::string golden_test_name(const ::testing::TestParamInfo<LossGolden>& info);

// Element-wise |got - want| <= tol * (|want| + floor), naming `what` and the element.
void expect_close(const Tensor& got, const std::vector<double>& want, double tol,
                  const std::string& what);

}  // namespace kiln::losses::testing
