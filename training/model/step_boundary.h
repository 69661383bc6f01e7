#pragma once
// What a batch goes through on its way into a traced step: the copy to the step's device and
// the casts to the dtypes the step was first traced for, so int64 token ids after int32 ones (or
// float64 features for a float32 model) reuse the trace instead of starting another.
#include <vector>

#include "kiln/framework/core/device.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/training/model/batch.h"

namespace kiln {

// The dtype each batch tensor enters the steps as.
struct BoundaryDTypes {
  std::vector<DType> x;
  std::vector<DType> y;
  std::vector<DType> sample_weight;
};

// The dtype a batch tensor enters the steps as: the declared one (the model input's, or for
// targets and weights the prediction's: the loss dtype) where it is of the same kind, integer or
// float, else the first batch's. Integer labels of a float prediction stay integers.
DType boundary_dtype(const Tensor& first, const TensorMeta* declared);

std::vector<Tensor> to_device(const std::vector<Tensor>& tensors, const Device& device);
Batch to_device(const Batch& batch, const Device& device);

// The inputs on `device`, cast to `dtypes` on whichever side of the copy moves fewer bytes.
std::vector<Tensor> inputs_on_device(const std::vector<Tensor>& x, const std::vector<DType>& dtypes,
                                     const Device& device);
// The batch on `device`, cast likewise.
Batch batch_on_device(const Batch& batch, const BoundaryDTypes& dtypes, const Device& device);
// The inputs cast to `dtypes` where they are not already (no copy).
std::vector<Tensor> inputs_cast(const std::vector<Tensor>& x, const std::vector<DType>& dtypes);

}  // namespace kiln
