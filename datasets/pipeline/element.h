#pragma once
// An element of a dataset: its components, e.g. {x, y} or {x, y, sample_weight}; multi-input
// models use more. Every component is a concrete CPU tensor (after a prefetch to a device, the
// pipeline's last step, on that device). Components share data with their
// source (slices are views, cache replays the same tensors), so treat them as read-only.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

using Element = std::vector<Tensor>;

// "(float32[28, 28], int64[])": the component signature, for error messages.
std::string describe(const Element& element);

// Stacks rows (elements with equal component shapes and dtypes) into one element whose
// components gain a leading axis of size rows.size(). Each component is one new tensor filled
// row by row with memcpy. Throws, prefixed with `what` (the calling transformation), naming the
// component, the element and both shapes on a mismatch.
Element stack_rows(std::span<const Element> rows, std::string_view what);

// How padded_batch and bucket_by_sequence_length pad component c of their rows: each axis to
// padded_shapes[c][axis], where -1 means the longest in the batch (no padded_shapes: every axis
// to the longest), with padding_values[c] (0 when none are given). Padding goes after the data.
struct PaddingSpec {
  std::vector<std::vector<int64_t>> padded_shapes;
  std::vector<double> padding_values;
};

// Pads rows (elements of equal rank and dtype per component) as `spec` says and stacks them.
// variable_length >= 0 replaces the -1 axes (axis 0 of every non-scalar component when spec has
// no padded_shapes): bucketing pads to its bucket's boundary. Throws, prefixed with `what`,
// naming the component, the element and the shapes when a row does not fit.
Element pad_rows(std::span<const Element> rows, const PaddingSpec& spec, std::string_view what,
                 int64_t variable_length = -1);

}  // namespace kiln::datasets
