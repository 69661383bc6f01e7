#pragma once
// bfloat16 on processors where oneDNN has none (onednn_has_bf16): the float32 kernel on float32
// copies.
#include "kiln/framework/ops/op_def.h"

namespace kiln::cpu {

// Runs `kernel` on float32 copies of the call's bfloat16 operands (exact: every bfloat16 is a
// float32) and rounds its float32 outputs to bfloat16 once, as oneDNN's bfloat16 kernels sum in
// float32 and round once. Operands of other dtypes (a pooling's argmax) are used as they are.
void run_widened_bf16(const KernelContext& c, KernelFn kernel);

}  // namespace kiln::cpu
