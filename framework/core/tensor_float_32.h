#pragma once
// Whether float32 matmuls, convolutions and recurrent projections on a GPU may run on TF32
// tensor cores (tf.config.experimental.enable_tensor_float_32_execution), which round each
// operand to 10 mantissa bits and keep float32's range and accumulation.
//
// Off by default, as PyTorch keeps its matmuls and unlike TensorFlow: kiln's float32 on a GPU
// gives the CPU's float32 results within float32 rounding, which the GPU tests and a run moved
// between devices rely on, and TF32 moves results by about 1e-3 relative. A user who wants the
// speed says so here, or in a run file (`precision: {policy: float32, tensor_float_32: true}`);
// mixed_bfloat16 is the faster policy still. CPU kernels ignore the setting.
namespace kiln {

void enable_tensor_float_32_execution(bool enabled);
bool tensor_float_32_execution_enabled();

}  // namespace kiln
