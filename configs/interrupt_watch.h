#pragma once
// Ctrl-C as a request to stop training. A SIGINT handler runs on the stack of whichever thread
// the signal lands on, wherever its stack pointer is. Delivered during oneDNN's sgemm, a handler
// frame corrupted the heap (an alternate signal stack made that go away; valgrind reports the
// thread's stack pointer moving off its stack during training). So SIGINT is blocked in every
// thread instead, and one thread of its own, which runs no kernels, waits for it.

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
