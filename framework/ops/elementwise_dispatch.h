#pragma once
// Host-side pieces every backend's elementwise kernels share: the functor of an op built from
// its attrs, and the dtype set each kernel accepts.
#include "framework/core/dtype.h"
#include "framework/ops/attrs.h"
#include "framework/ops/elementwise_functors.h"

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

// Which dtypes a kernel accepts; others raise an error naming the kernel.
enum class Types { floating, numeric, all };

template <Types types, typename Body>
void visit_types(DType dtype, Body&& body) {
  if constexpr (types == Types::floating)
    visit_float_dtype(dtype, "elementwise kernel", body);
  else if constexpr (types == Types::numeric)
    visit_numeric_dtype(dtype, "elementwise kernel", body);
  else
    visit_dtype(dtype, body);
}

}  // namespace kiln::fn
