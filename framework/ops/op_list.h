#pragma once
// The op table's index: every primitive op kiln knows, once. Each name has one definition (shape
// and dtype inference, gradient, kernels) in framework/ops/defs/; composite ops such as softmax
// or mean are plain functions over these and need no entry.
#include <cstdint>

#include "kiln/framework/ops/unary_op_rows.h"

// The unary elementwise ops are rows of unary_op_rows.h; logical_not, on bools only, is not.
#define KILN_UNARY_OPS(X) \
  KILN_UNARY_OP_ROWS(KILN_UNARY_ROW_NAME, KILN_UNARY_ROW_NAME, X) X(logical_not)

// clang-format off

#define KILN_BINARY_OPS(X)                                                                   \
  X(add) X(sub) X(mul) X(div) X(pow) X(maximum) X(minimum) X(equal) X(not_equal) X(less)    \
  X(less_equal) X(greater) X(greater_equal) X(logical_and) X(logical_or)

#define KILN_REDUCE_OPS(X) X(reduce_sum) X(reduce_max) X(reduce_min) X(reduce_prod)

#define KILN_OTHER_OPS(X)                                                                  \
  X(identity) X(cast) X(where) X(argmax) X(argmin) X(matmul) X(reshape) X(transpose)       \
  X(expand_dims) X(squeeze) X(broadcast_to) X(broadcast_like) X(reshape_like) X(size_of)   \
  X(strided_slice) X(strided_slice_grad) X(concat) X(pad) X(gather) X(scatter_add) X(range_like)         \
  X(conv2d) X(conv2d_backprop_input) X(conv2d_backprop_filter) X(max_pool2d)               \
  X(max_pool2d_grad) X(avg_pool2d) X(avg_pool2d_grad) X(random_uniform) X(rnn_sequence)        \
  X(rnn_sequence_grad) X(adam_update) X(all_reduce_start) X(all_reduce_wait)

// Graph ops: the boundary of a traced graph (its arguments, captured constants, variable reads).
// They have no kernels; the engine binds their values before a graph runs.
#define KILN_GRAPH_OPS(X) X(placeholder) X(constant) X(read_variable)

// Ops only the engine's passes create: a chain of elementwise ops run as one loop, its program
// in the node's payload (framework/graph/fused_program.h); a convolution or a Dense layer's
// matmul with its bias add and relu; a max pool that keeps each window's argmax for its gradient,
// and that gradient.
#define KILN_FUSED_OPS(X)                                                                    \
  X(fused_elementwise) X(conv2d_bias_activation) X(matmul_bias_activation)                 \
  X(max_pool2d_with_argmax) X(max_pool2d_grad_from_argmax)

// Control flow in traced graphs (engine/control_flow/): the branches or loop body are subgraphs in
// the node's payload; the node yields a bundle whose values tuple_get picks out.
#define KILN_CONTROL_OPS(X) X(cond) X(while_loop) X(tuple_get)
// clang-format on

#define KILN_PRIMITIVE_OPS(X) \
  KILN_UNARY_OPS(X) KILN_BINARY_OPS(X) KILN_REDUCE_OPS(X) KILN_OTHER_OPS(X)
#define KILN_OPS(X) KILN_PRIMITIVE_OPS(X) KILN_GRAPH_OPS(X) KILN_FUSED_OPS(X) KILN_CONTROL_OPS(X)

namespace kiln {

enum class OpId : uint16_t {
#define KILN_OP_ENUM(name) name,
  KILN_OPS(KILN_OP_ENUM)
#undef KILN_OP_ENUM
};

#define KILN_OP_COUNT(name) +1
inline constexpr int kNumOps = 0 KILN_OPS(KILN_OP_COUNT);
#undef KILN_OP_COUNT

}  // namespace kiln
