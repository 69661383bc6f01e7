#pragma once
// Every unary elementwise op in one row. A row names the op, its functor (the math, in
// elementwise_functors.h, shared by every backend), the dtypes it takes (Numeric or Floating),
// its inputs' domain for tests (any, or positive for log's kind) and its gradient (a function in
// defs/unary_ops.cpp, or nullptr). An attribute's name must be a key of attr_keys.h of its type. A
// row with an attribute adds its type, name and default: the functor's field, the op's attr and the
// front function's parameter.
//
// From these rows follow the op list (op_list.h), the functor list (elementwise_functor_list.h)
// and with it the fused CPU loops and CUDA sources, shape and dtype inference, the front
// functions and their declarations (ops.h), the CPU and CUDA kernel registrations, and the
// parity table's cases. A new op is a row, a functor and a gradient.
//
//   ROW(X, op, Functor, dtypes, domain, gradient)
//   ROW_ATTR(X, op, Functor, dtypes, domain, gradient, attr type, attr name, default)

// clang-format off
#define KILN_UNARY_OP_ROWS(ROW, ROW_ATTR, X)                                                                \
  ROW(X,      neg,          Neg,         Numeric,  any,      grad_neg)                                      \
  ROW(X,      abs,          Abs,         Numeric,  any,      grad_abs)                                      \
  ROW(X,      sign,         Sign,        Numeric,  any,      nullptr)                                       \
  ROW(X,      exp,          Exp,         Floating, any,      grad_exp)                                      \
  ROW(X,      log,          Log,         Floating, positive, grad_log)                                      \
  ROW(X,      log1p,        Log1p,       Floating, positive, grad_log1p)                                    \
  ROW(X,      sqrt,         Sqrt,        Floating, positive, grad_sqrt)                                     \
  ROW(X,      rsqrt,        Rsqrt,       Floating, positive, grad_rsqrt)                                    \
  ROW(X,      square,       Square,      Numeric,  any,      grad_square)                                   \
  ROW(X,      tanh,         Tanh,        Floating, any,      grad_tanh)                                     \
  ROW(X,      sigmoid,      Sigmoid,     Floating, any,      grad_sigmoid)                                  \
  ROW(X,      relu,         Relu,        Numeric,  any,      grad_relu)                                     \
  ROW_ATTR(X, leaky_relu,   LeakyRelu,   Floating, any,      grad_leaky_relu,   double, alpha,       0.3)   \
  ROW_ATTR(X, elu,          Elu,         Floating, any,      grad_elu,          double, alpha,       1.0)   \
  ROW_ATTR(X, gelu,         Gelu,        Floating, any,      grad_gelu,         bool,   approximate, false) \
  ROW(X,      softplus,     Softplus,    Floating, any,      grad_softplus)                                 \
  ROW(X,      sin,          Sin,         Floating, any,      grad_sin)                                      \
  ROW(X,      cos,          Cos,         Floating, any,      grad_cos)                                      \
  ROW(X,      erf,          Erf,         Floating, any,      grad_erf)                                      \
  ROW(X,      relu6,        Relu6,       Floating, any,      grad_relu6)                                    \
  ROW(X,      hard_sigmoid, HardSigmoid, Floating, any,      grad_hard_sigmoid)                             \
  ROW(X,      hard_silu,    HardSilu,    Floating, any,      grad_hard_silu)                                \
  ROW(X,      mish,         Mish,        Floating, any,      grad_mish)                                     \
  ROW(X,      softsign,     Softsign,    Floating, any,      grad_softsign)
// clang-format on

namespace kiln {

// A row's domain column: the inputs tests draw for the op.
enum class InputDomain { any, positive };
// A function, not `domain == InputDomain::positive` in the expanding macro, which would compare
// a constant with itself for the positive rows.
constexpr bool positive_inputs(InputDomain domain) {
  return domain == InputDomain::positive;
}

}  // namespace kiln

// Adapters for consumers that need less than a row (a variadic macro takes both kinds of row).
#define KILN_UNARY_ROW_NAME(X, op, ...) X(op)
#define KILN_UNARY_ROW_FUNCTOR(X, op, F, ...) X(op, F)
