#pragma once
// The three reference trainings of the device tests, small enough for every machine: an MLP, a
// CNN with BatchNormalization and Dropout, and an LSTM over length-bucketed sequences, each
// seeded and fitted for kSteps steps on a named device. Run on two devices, they must agree.
#include <ostream>
#include <string>
#include <vector>

#include "kiln/framework/tensor/tensor.h"
#include "kiln/training/model/model.h"

namespace kiln::testing {

inline constexpr int64_t kSteps = 20;

struct FitRecord {
  std::vector<double> losses;   // after every step, as fit reports them
  std::vector<Tensor> weights;  // the model's, at the end (host copies)
  Device device;                // where the model trained
};

enum class ReferenceModel { mlp, cnn, lstm };
std::string to_string(ReferenceModel model);
inline void PrintTo(ReferenceModel model, std::ostream* os) {
  *os << to_string(model);
}

// The model, built and compiled on `device` ("" lets compile choose), with its seed set.
std::unique_ptr<Model> reference_model(ReferenceModel model, const std::string& device);
// Its data: kSteps batches in one pass (host tensors, as a pipeline produces them).
datasets::Dataset reference_data(ReferenceModel model);
// Fits `model` for one pass of its data, recording every step's loss.
FitRecord reference_fit(ReferenceModel model, const std::string& device);

// Losses and weights equal to `tolerance`, relative to each value's magnitude (at least 1).
void expect_same_fit(const FitRecord& got, const FitRecord& want, double tolerance);

}  // namespace kiln::testing
