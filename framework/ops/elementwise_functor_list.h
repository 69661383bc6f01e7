#pragma once
// The elementwise ops that have a functor (elementwise_functors.h), as X-macro lists of
// (op, functor): for the op-to-functor map and for code instantiated once per functor.
#include "kiln/framework/ops/unary_op_rows.h"

#define KILN_UNARY_FUNCTORS(X)                                          \
  KILN_UNARY_OP_ROWS(KILN_UNARY_ROW_FUNCTOR, KILN_UNARY_ROW_FUNCTOR, X) \
  X(logical_not, LogicalNot)

#define KILN_BINARY_FUNCTORS(X)  \
  X(add, Add)                    \
  X(sub, Sub)                    \
  X(mul, Mul)                    \
  X(div, Div)                    \
  X(pow, Pow)                    \
  X(maximum, Maximum)            \
  X(minimum, Minimum)            \
  X(equal, Equal)                \
  X(not_equal, NotEqual)         \
  X(less, Less)                  \
  X(less_equal, LessEqual)       \
  X(greater, Greater)            \
  X(greater_equal, GreaterEqual) \
  X(logical_and, LogicalAnd)     \
  X(logical_or, LogicalOr)
