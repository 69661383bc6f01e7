#pragma once
// The names of op attributes, each with its value's type: op definitions, passes and kernels in
// different files read and write an attribute through one constant, so a misspelt name fails to
// compile instead of failing at run time, and Attrs::get(attr::d_begin) returns the right type.
#include <cstdint>
#include <string_view>
#include <vector>

#include "kiln/framework/core/dtype.h"

namespace kiln {

template <typename T>
struct AttrKey {
  std::string_view name;
  // Where Attrs takes a name: Attrs{{attr::axis, int64_t{1}}}, attrs.has(attr::axis).
  constexpr operator std::string_view() const { return name; }  // NOLINT: a key is its name
};

namespace attr {

using Ints = std::vector<int64_t>;

// Elementwise activations.
inline constexpr AttrKey<double> alpha{"alpha"};
inline constexpr AttrKey<bool> approximate{"approximate"};
inline constexpr AttrKey<double> value{"value"};
// Casts, reductions and shapes.
inline constexpr AttrKey<DType> dtype{"dtype"};
inline constexpr AttrKey<int64_t> axis{"axis"};
inline constexpr AttrKey<Ints> axes{"axes"};
inline constexpr AttrKey<bool> keepdims{"keepdims"};
inline constexpr AttrKey<int64_t> reduction{"reduction"};
inline constexpr AttrKey<Ints> shape{"shape"};
inline constexpr AttrKey<Ints> perm{"perm"};
inline constexpr AttrKey<int64_t> leading{"leading"};
inline constexpr AttrKey<int64_t> index{"index"};
inline constexpr AttrKey<Ints> begin{"begin"};
inline constexpr AttrKey<Ints> end{"end"};
inline constexpr AttrKey<Ints> strides{"strides"};
inline constexpr AttrKey<Ints> paddings{"paddings"};
// Matrix products.
inline constexpr AttrKey<bool> transpose_a{"transpose_a"};
inline constexpr AttrKey<bool> transpose_b{"transpose_b"};
// Convolutions and pooling.
inline constexpr AttrKey<bool> same{"same"};
inline constexpr AttrKey<Ints> dilation{"dilation"};
inline constexpr AttrKey<int64_t> groups{"groups"};
inline constexpr AttrKey<bool> relu{"relu"};
inline constexpr AttrKey<Ints> pool_size{"pool_size"};
inline constexpr AttrKey<Ints> input_hw{"input_hw"};
inline constexpr AttrKey<Ints> filter_shape{"filter_shape"};
// Recurrent sequences: the cell, its activations, direction and masks, and the rows of the
// hidden-state gradient a pass found the step's loss reads (d_begin, d_end).
inline constexpr AttrKey<int64_t> cell{"cell"};
inline constexpr AttrKey<int64_t> activation{"activation"};
inline constexpr AttrKey<int64_t> recurrent_activation{"recurrent_activation"};
inline constexpr AttrKey<bool> reverse{"reverse"};
inline constexpr AttrKey<bool> has_mask{"has_mask"};
inline constexpr AttrKey<bool> has_dropout{"has_dropout"};
inline constexpr AttrKey<bool> initial_grad{"initial_grad"};
inline constexpr AttrKey<Ints> d_begin{"d_begin"};
inline constexpr AttrKey<Ints> d_end{"d_end"};
// Optimizer updates.
inline constexpr AttrKey<double> beta_1{"beta_1"};
inline constexpr AttrKey<double> beta_2{"beta_2"};
inline constexpr AttrKey<double> epsilon{"epsilon"};
// Collectives: the gradient bucket an all-reduce belongs to.
inline constexpr AttrKey<int64_t> bucket{"bucket"};

}  // namespace attr
}  // namespace kiln
