// Ctrl-C through the watching thread: while training listens it becomes a stop request, and
// otherwise it ends the process as SIGINT does by default. Each case runs in a child process
// (a death test), since it changes the process's signal mask.
#include "kiln/configs/interrupt_watch.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "kiln/configs/run_callbacks.h"

namespace kiln::configs {
namespace {

// Waits up to 10 s for the watching thread to see the interrupt.
bool interrupt_seen() {
  for (int i = 0; i < 1000 && !interrupt_requested().load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return interrupt_requested().load();
}

TEST(InterruptWatchDeathTest, AnInterruptWhileTrainingIsAStopRequest) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        watch_interrupts();
        const StopOnInterrupt listening;
        kill(getpid(), SIGINT);
        std::exit(interrupt_seen() ? 3 : 4);
      },
      testing::ExitedWithCode(3), "");
}

TEST(InterruptWatchDeathTest, AnInterruptOutsideTrainingEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        watch_interrupts();
        { const StopOnInterrupt finished; }
        kill(getpid(), SIGINT);
        std::this_thread::sleep_for(std::chrono::seconds(10));
        std::exit(0);
      },
      testing::KilledBySignal(SIGINT), "");
}

TEST(InterruptWatchDeathTest, AStartWithInterruptsIgnoredKeepsIgnoringThemOutsideTraining) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::signal(SIGINT, SIG_IGN);
        watch_interrupts();
        kill(getpid(), SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const StopOnInterrupt listening;  // clears any request: none was made
        kill(getpid(), SIGINT);
        std::exit(interrupt_seen() ? 3 : 4);
      },
      testing::ExitedWithCode(3), "");
}

}  // namespace
}  // namespace kiln::configs
