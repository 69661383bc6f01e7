#pragma once
// The input signatures the steps are traced for, from the first batch's tensors.
#include <cstdint>
#include <vector>

#include "kiln/engine/function/tensor_spec.h"
#include "kiln/training/model/batch.h"

namespace kiln {

// Each tensor as given, but any batch size, and any size on the axes where `declared[i]` (the
// model's input or output spec the tensor goes with) has an unknown dim: a model declared on
// Input({-1}) takes sequences of every length in one trace. On the tensors' device.
std::vector<TensorSpec> step_specs(const std::vector<Tensor>& tensors,
                                   const std::vector<TensorMeta>& declared);

std::vector<TensorMeta> metas_of(const std::vector<TensorSpec>& specs);

// The signature of `steps` batches concatenated argument by argument: each argument's specs
// (as `batch` has that argument's tensors) repeated `steps` times.
std::vector<TensorSpec> repeated(const std::vector<TensorSpec>& one, const Batch& batch,
                                 int64_t steps);

// Batch i's tensors of one argument holding `steps` batches' tensors back to back.
std::vector<Tensor> nth_group(const std::vector<Tensor>& all, int64_t i, int64_t steps);

}  // namespace kiln
