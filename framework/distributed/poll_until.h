#pragma once
// Waiting, with a bound, for work that finishes on its own: NCCL's nonblocking calls report
// "in progress" until a thread of NCCL's completes them, and a rank that never arrives would keep
// them so forever. The first polls only yield between them, as a collective handed to NCCL's
// thread is usually queued within microseconds and every step waits for several; after that the
// pauses grow to a millisecond, so a long wait (the ranks joining a communicator) costs little
// processor time.
#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

namespace kiln::distributed {

// Calls `poll` until it returns something other than `pending` (success or failure alike) and
// returns that; nullopt when it still returned `pending` once `deadline` had passed. `poll` runs
// at least once, so something finished before the call is seen even past the deadline.
template <typename Result, typename Poll>
std::optional<Result> poll_until(std::chrono::steady_clock::time_point deadline, Result pending,
                                 Poll poll) {
  using Clock = std::chrono::steady_clock;
  constexpr std::chrono::microseconds kSpin{100};
  constexpr std::chrono::microseconds kLongestPause{1000};
  const Clock::time_point spin_until = Clock::now() + kSpin;
  std::chrono::microseconds pause{1};
  for (;;) {
    Result result = poll();
    if (result != pending) return result;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return std::nullopt;
    if (now < spin_until) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, kLongestPause);
  }
}

}  // namespace kiln::distributed
