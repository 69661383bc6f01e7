#pragma once
// An optimizer's update of one variable and its slots as one op: one pass over memory reads the
// gradient and the slots once and writes every result, where the same update as separate ops
// (or a fused elementwise program) passes over the data once per op or per block of ops. The
// optimizers (optimizers/) use it where the device has its kernel.
#include "kiln/framework/tensor/tensor.h"

namespace kiln::ops {

struct AdamUpdate {
  Tensor variable;  // the variable's new value
  Tensor m;         // the first moment's
  Tensor v;         // the second moment's
};

// One step of Adam (Keras's form, the bias corrections folded into alpha):
//   m' = m + (gradient - m) * (1 - beta_1)
//   v' = v + (gradient^2 - v) * (1 - beta_2)
//   variable' = variable - m' * alpha / (sqrt(v') + epsilon)
// evaluated in exactly that order in the variable's dtype, so the values equal those ops'. The
// four tensors share one meta; alpha is a scalar tensor (the step's rate, traced). Not
// differentiable. Traced, the results are the op's node and its tuple_gets 1 and 2.
AdamUpdate adam_update(const Tensor& variable, const Tensor& m, const Tensor& v,
                       const Tensor& gradient, const Tensor& alpha, double beta_1, double beta_2,
                       double epsilon);

}  // namespace kiln::ops
