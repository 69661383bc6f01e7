#pragma once
// Host-side piece every backend's elementwise kernels share: the functor of an op built from
// its attrs.
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

}  // namespace kiln::fn
