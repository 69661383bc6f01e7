#pragma once
// An element of a dataset: its components, e.g. {x, y} or {x, y, sample_weight}; multi-input
// models use more. Every component is a concrete CPU tensor. Components share data with their
// source (slices are views, cache replays the same tensors), so treat them as read-only.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "framework/tensor/tensor.h"

namespace kiln::datasets {

using Element = std::vector<Tensor>;

// "(float32[28, 28], int64[])": the component signature, for error messages.
std::string describe(const Element& element);

// Stacks rows (elements with equal component shapes and dtypes) into one element whose
// components gain a leading axis of size rows.size(). Each component is one new tensor filled
// row by row with memcpy. Throws, prefixed with `what` (the calling transformation), naming the
// component, the element and both shapes on a mismatch.
Element stack_rows(std::span<const Element> rows, std::string_view what);

}  // namespace kiln::datasets
