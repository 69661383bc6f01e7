// poll_until, the bounded wait behind NCCL's nonblocking calls: it returns what the poll settles
// on, success or failure, and gives up once the deadline has passed.
#include "kiln/framework/distributed/poll_until.h"

#include <gtest/gtest.h>

#include <chrono>

namespace kiln::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::hours;
using std::chrono::milliseconds;

enum class State { done, pending, failed };

TEST(PollUntil, ReturnsTheResultOnceTheWorkSettlesBeforeTheDeadline) {
  int polls = 0;
  const std::optional<State> result = poll_until(Clock::now() + hours(1), State::pending, [&] {
    return ++polls < 4 ? State::pending : State::done;
  });
  EXPECT_EQ(result, State::done);
  EXPECT_EQ(polls, 4);
}

TEST(PollUntil, GivesUpOnceTheDeadlineHasPassed) {
  int polls = 0;
  const Clock::time_point deadline = Clock::now() + milliseconds(20);
  const std::optional<State> result = poll_until(deadline, State::pending, [&] {
    ++polls;
    return State::pending;
  });
  EXPECT_EQ(result, std::nullopt);
  EXPECT_GE(Clock::now(), deadline);
  EXPECT_GT(polls, 1);
}

TEST(PollUntil, AFailureEndsTheWait) {
  int polls = 0;
  const std::optional<State> result = poll_until(Clock::now() + hours(1), State::pending, [&] {
    return ++polls < 2 ? State::pending : State::failed;
  });
  EXPECT_EQ(result, State::failed);
  EXPECT_EQ(polls, 2);
}

TEST(PollUntil, PollsOnceEvenPastTheDeadline) {
  int polls = 0;
  const std::optional<State> result =
      poll_until(Clock::now() - milliseconds(1), State::pending, [&] {
        ++polls;
        return State::done;
      });
  EXPECT_EQ(result, State::done);
  EXPECT_EQ(polls, 1);
}

}  // namespace
}  // namespace kiln::distributed
