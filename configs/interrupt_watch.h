#pragma once
// Ctrl-C as a request to stop training. A SIGINT handler would run on the stack of whichever
// thread the signal lands on, and oneDNN's JIT GEMM kernels point the stack register into heap
// buffers while they run: the handler's frame would overwrite heap memory there (Ctrl-C during
// training used to corrupt the heap). So SIGINT is blocked in every thread instead, and one thread
// of its own, which runs no kernels, waits for it.

namespace kiln::configs {

// Blocks SIGINT in the calling thread and starts the thread that waits for it. Call it first in
// main, before any other thread exists, so that every thread inherits the block. A SIGINT while a
// StopOnInterrupt lives sets interrupt_requested(); any other has its usual effect: it ends the
// process, unless the process started with SIGINT ignored.
void watch_interrupts();

// While one lives, SIGINT asks training to stop (interrupt_requested()) instead of ending the
// process. Clears the request when it starts.
class StopOnInterrupt {
 public:
  StopOnInterrupt();
  ~StopOnInterrupt();
  StopOnInterrupt(const StopOnInterrupt&) = delete;
  StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;
};

}  // namespace kiln::configs
