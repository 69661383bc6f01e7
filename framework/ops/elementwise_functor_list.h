#pragma once
// The elementwise ops that have a functor (elementwise_functors.h), as X-macro lists of
// (op, functor): for the op-to-functor map and for code instantiated once per functor.

#define KILN_UNARY_FUNCTORS(X) \
  X(neg, Neg)                  \
  X(abs, Abs)                  \
  X(sign, Sign)                \
  X(exp, Exp)                  \
  X(log, Log)                  \
  X(log1p, Log1p)              \
  X(sqrt, Sqrt)                \
  X(rsqrt, Rsqrt)              \
  X(square, Square)            \
  X(tanh, Tanh)                \
  X(sigmoid, Sigmoid)          \
  X(relu, Relu)                \
  X(leaky_relu, LeakyRelu)     \
  X(elu, Elu)                  \
  X(gelu, Gelu)                \
  X(softplus, Softplus)        \
  X(sin, Sin)                  \
  X(cos, Cos)                  \
  X(erf, Erf)                  \
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
