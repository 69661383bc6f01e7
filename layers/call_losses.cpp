#include "kiln/layers/call_losses.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::layers {
namespace {

thread_local CallLosses* innermost = nullptr;

}  // namespace

CallLosses::CallLosses() : outer_(innermost) {
  innermost = this;
}

CallLosses::~CallLosses() {
  innermost = outer_;
}

Tensor CallLosses::total() const {
  Tensor sum;
  for (const Tensor& loss : losses_) sum = sum.defined() ? sum + loss : loss;
  return sum;
}

bool CallLosses::active() {
  return innermost != nullptr;
}

void CallLosses::add(const Tensor& loss) {
  if (innermost == nullptr) return;
  const Tensor scalar = loss.shape().rank() == 0 ? loss : ops::sum(loss);
  innermost->losses_.push_back(ops::cast(scalar, DType::f32));
}

}  // namespace kiln::layers
