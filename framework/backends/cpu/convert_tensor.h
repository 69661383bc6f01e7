#pragma once
// Conversion of a whole tensor between dtypes on the CPU: the cast op's kernel, and the float32
// copies of bfloat16 operands where oneDNN has no bfloat16 (widened_bf16.h).
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cpu {

// Writes `in` converted to out's dtype into `out` (as many elements). float32 <-> bfloat16 runs at
// the processor's instruction set level on the thread pool (a mixed_bfloat16 step's weights and
// gradients): convert_buffer's baseline loop rounded to bfloat16 at a third of AVX-512's speed.
// Other pairs take convert_buffer. Both round as convert_value does.
void convert_tensor(const Tensor& in, const Tensor& out);

}  // namespace kiln::cpu
