#pragma once
// Host-side pieces every backend's elementwise kernels share: the functor of an op built from
// its attrs, and the op-to-functor map for kernels that pick the op at run time (fused ones).
#include "framework/core/dtype.h"
#include "framework/ops/attrs.h"
#include "framework/ops/elementwise_functors.h"
#include "framework/ops/op_list.h"

namespace kiln::fn {

template <typename F>
F make_functor(const Attrs&) {
  return F{};
}
template <>
inline LeakyRelu make_functor<LeakyRelu>(const Attrs& a) {
  return {a.get_float("alpha")};
}
template <>
inline Elu make_functor<Elu>(const Attrs& a) {
  return {a.get_float("alpha")};
}
template <>
inline Gelu make_functor<Gelu>(const Attrs& a) {
  return {a.get_bool("approximate")};
}

// Calls visit(functor) with the functor of a unary or binary op built from attrs; returns false
// for any other op (cast and where have no functor).
template <typename Visit>
bool visit_elementwise_functor(OpId op, const Attrs& attrs, Visit&& visit) {
  switch (op) {
#define KILN_FUNCTOR_CASE(name, F) \
  case OpId::name:                 \
    visit(make_functor<F>(attrs)); \
    return true;
    KILN_FUNCTOR_CASE(neg, Neg)
    KILN_FUNCTOR_CASE(abs, Abs)
    KILN_FUNCTOR_CASE(sign, Sign)
    KILN_FUNCTOR_CASE(exp, Exp)
    KILN_FUNCTOR_CASE(log, Log)
    KILN_FUNCTOR_CASE(log1p, Log1p)
    KILN_FUNCTOR_CASE(sqrt, Sqrt)
    KILN_FUNCTOR_CASE(rsqrt, Rsqrt)
    KILN_FUNCTOR_CASE(square, Square)
    KILN_FUNCTOR_CASE(tanh, Tanh)
    KILN_FUNCTOR_CASE(sigmoid, Sigmoid)
    KILN_FUNCTOR_CASE(relu, Relu)
    KILN_FUNCTOR_CASE(leaky_relu, LeakyRelu)
    KILN_FUNCTOR_CASE(elu, Elu)
    KILN_FUNCTOR_CASE(gelu, Gelu)
    KILN_FUNCTOR_CASE(softplus, Softplus)
    KILN_FUNCTOR_CASE(sin, Sin)
    KILN_FUNCTOR_CASE(cos, Cos)
    KILN_FUNCTOR_CASE(erf, Erf)
    KILN_FUNCTOR_CASE(logical_not, LogicalNot)
    KILN_FUNCTOR_CASE(add, Add)
    KILN_FUNCTOR_CASE(sub, Sub)
    KILN_FUNCTOR_CASE(mul, Mul)
    KILN_FUNCTOR_CASE(div, Div)
    KILN_FUNCTOR_CASE(pow, Pow)
    KILN_FUNCTOR_CASE(maximum, Maximum)
    KILN_FUNCTOR_CASE(minimum, Minimum)
    KILN_FUNCTOR_CASE(equal, Equal)
    KILN_FUNCTOR_CASE(not_equal, NotEqual)
    KILN_FUNCTOR_CASE(less, Less)
    KILN_FUNCTOR_CASE(less_equal, LessEqual)
    KILN_FUNCTOR_CASE(greater, Greater)
    KILN_FUNCTOR_CASE(greater_equal, GreaterEqual)
    KILN_FUNCTOR_CASE(logical_and, LogicalAnd)
    KILN_FUNCTOR_CASE(logical_or, LogicalOr)
#undef KILN_FUNCTOR_CASE
    default:
      return false;
  }
}

}  // namespace kiln::fn
