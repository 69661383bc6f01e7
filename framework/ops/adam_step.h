#pragma once
// One element of the adam_update op (optimizer_ops.h), host and device code (KILN_HD): the CPU
// and CUDA kernels compute it alike, both compiled without FMA contraction, so with IEEE sqrt and
// division they give the separate elementwise ops' values bit for bit on either device.
#include <cmath>

#include "kiln/framework/core/half.h"

namespace kiln {

template <typename T>
struct AdamStep {
  // The constants as the separate ops see them: double attrs rounded to T.
  T one_minus_beta_1;
  T one_minus_beta_2;
  T epsilon;
  T alpha;

  // The new variable, m and v from the old ones and the gradient; every input is read before
  // an output is written, so the outputs may be the inputs' memory.
  KILN_HD void operator()(T w, T m, T v, T g, T& w_out, T& m_out, T& v_out) const {
    const T m_new = m + (g - m) * one_minus_beta_1;
    const T v_new = v + (g * g - v) * one_minus_beta_2;
    w_out = w - m_new * alpha / (std::sqrt(v_new) + epsilon);
    m_out = m_new;
    v_out = v_new;
  }
};

}  // namespace kiln
