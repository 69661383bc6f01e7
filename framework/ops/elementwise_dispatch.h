#pragma once
// Host-side pieces every backend's elementwise kernels share: the functor of an op built from
// its attrs, and the op-to-functor map for kernels that pick the op at run time (fused ones).
#include "kiln/framework/core/dtype.h"
#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/ops/elementwise_functor_list.h"
#include "kiln/framework/ops/elementwise_functors.h"
#include "kiln/framework/ops/op_list.h"

namespace kiln::fn {

template <typename F>
F make_functor(const Attrs&) {
  return F{};
}
// A row with an attribute: its functor holds the op's attr.
#define KILN_NO_ATTR_FUNCTOR(...)
#define KILN_ATTR_FUNCTOR(X, op, F, dtypes, domain, gradient, type, key, value) \
  template <>                                                                   \
  inline F make_functor<F>(const Attrs& a) {                                    \
    return {a.get(attr::key)};                                                  \
  }
KILN_UNARY_OP_ROWS(KILN_NO_ATTR_FUNCTOR, KILN_ATTR_FUNCTOR, _)
#undef KILN_ATTR_FUNCTOR
#undef KILN_NO_ATTR_FUNCTOR

// Calls visit(functor) with the functor of a unary or binary op built from attrs; returns false
// for any other op (cast and where have no functor).
template <typename Visit>
bool visit_elementwise_functor(OpId op, const Attrs& attrs, Visit&& visit) {
  switch (op) {
#define KILN_FUNCTOR_CASE(name, F) \
  case OpId::name:                 \
    visit(make_functor<F>(attrs)); \
    return true;
    KILN_UNARY_FUNCTORS(KILN_FUNCTOR_CASE)
    KILN_BINARY_FUNCTORS(KILN_FUNCTOR_CASE)
#undef KILN_FUNCTOR_CASE
    default:
      return false;
  }
}

}  // namespace kiln::fn
