#pragma once
// The one place a kernel is started, for the eager dispatcher and the graph executor alike, so a
// device fault is reported the same way from both. GPU kernels run asynchronously: a kernel that
// faults is reported by whatever call synchronizes next, often many ops later. Under synchronous
// kernels (KILN_CUDA_SYNC=1 in the environment, or set_synchronous_kernels(true)), every kernel on
// a device other than the CPU is followed by a synchronization of its device, and an error from
// the kernel or that synchronization is rethrown naming the op, its operands and its output.
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/op_list.h"

namespace kiln {

// Runs `prepared` when given, else `kernel`, on context `c` of op `op`.
void launch_kernel(OpId op, KernelFn kernel, const PreparedKernel* prepared,
                   const KernelContext& c);

// Whether kernels on devices are synchronized after each launch; starts as KILN_CUDA_SYNC=1.
bool synchronous_kernels();
void set_synchronous_kernels(bool on);

}  // namespace kiln
