#include "kiln/configs/interrupt_watch.h"

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "kiln/configs/run_callbacks.h"

namespace kiln::configs {
namespace {

std::atomic<int>& stoppers() {
  static std::atomic<int> count{0};
  return count;
}

sigset_t interrupt_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  return set;
}

// ignored: the process started with SIGINT ignored (a background job of a script), in which case
// only training listens for it.
[[noreturn]] void wait_for_interrupts(bool ignored) {
  const sigset_t set = interrupt_set();
  for (;;) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    if (stoppers().load() > 0) {
      interrupt_requested().store(true);
      continue;
    }
    if (ignored) continue;
    // Not training: end the process as SIGINT's default action does, from this thread.
    std::signal(SIGINT, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    std::raise(SIGINT);
  }
}

}  // namespace

void watch_interrupts() {
  const sigset_t set = interrupt_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  struct sigaction current {};
  sigaction(SIGINT, nullptr, &current);
  std::thread(wait_for_interrupts, current.sa_handler == SIG_IGN).detach();
}

StopOnInterrupt::StopOnInterrupt() {
  interrupt_requested().store(false);
  ++stoppers();
}

StopOnInterrupt::~StopOnInterrupt() {
  --stoppers();
}

}  // namespace kiln::configs
