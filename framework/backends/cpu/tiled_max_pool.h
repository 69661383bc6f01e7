#pragma once
// float32 max pooling whose windows tile the input (strides equal to the pool, no padding: Keras's
// MaxPooling2D(n)): max_pool2d, and the pair a training step runs, max_pool2d_with_argmax and
// max_pool2d_grad_from_argmax. Each window's channels are one contiguous NHWC vector, so the max
// and its argmax (the window position kh * pool width + kw, the first in scan order on ties, as
// oneDNN's workspace and the reference loops hold it) vectorize over channels at the processor's
// level, and the gradient writes every input cell once, with no scatter. oneDNN's AVX2 kernels
// for these ran 2.7x (backward) to 4x (forward) slower than its AVX-512 ones (docs/framework.md,
// "Measured choices").
#include "kiln/framework/ops/op_def.h"

namespace kiln::cpu {

// Whether the op in `c` is float32 over windows that tile its input.
bool tiled_max_pool_applies(const KernelContext& c);
// max_pool2d_with_argmax, or max_pool2d when `c` has no argmax output.
void tiled_max_pool_with_argmax(const KernelContext& c);
void tiled_max_pool_grad_from_argmax(const KernelContext& c);

}  // namespace kiln::cpu
