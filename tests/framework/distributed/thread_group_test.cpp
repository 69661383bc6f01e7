// Ranks that are threads of one process (MirroredStrategy's): each thread issues the same
// collectives in the same order and all get the same combined values; a rank that never comes, or
// a group aborted by a failed rank, ends the others' waits with an error naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/thread_group.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

using distributed::Communicator;
using distributed::ReduceOp;
using ::testing::HasSubstr;

using Ranks = std::vector<std::shared_ptr<Communicator>>;

// Runs body(rank) on a thread per rank; returns each rank's error message ("" when none).
std::vector<std::string> on_threads(const Ranks& ranks,
                                    const std::function<void(Communicator&)>& body) {
  std::vector<std::string> errors(ranks.size());
  std::vector<std::thread> threads;
  for (size_t r = 0; r < ranks.size(); ++r)
    threads.emplace_back([&, r] {
      try {
        body(*ranks[r]);
      } catch (const Error& e) {
        errors[r] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  return errors;
}

TEST(ThreadGroup, TheRanksCollectivesCombineTheirValues) {
  const Ranks ranks = distributed::thread_group(3);
  const auto errors = on_threads(ranks, [](Communicator& c) {
    const auto rank = static_cast<float>(c.rank());
    EXPECT_EQ(c.size(), 3);
    EXPECT_EQ(c.backend(), "threads");
    const Tensor sum = from_vector<float>({rank, 10 * rank}, {2});
    c.all_reduce(sum, ReduceOp::sum, "sum");
    EXPECT_EQ(sum.to_vector<float>(), (std::vector<float>{3, 30}));
    const Tensor mean = from_vector<double>({rank * 3}, {1});
    c.all_reduce(mean, ReduceOp::mean, "mean");
    EXPECT_EQ(mean.to_vector<double>(), (std::vector<double>{3}));
    const Tensor top = from_vector<int64_t>({static_cast<int64_t>(rank) * 7}, {1});
    c.all_reduce(top, ReduceOp::max, "max");
    EXPECT_EQ(top.to_vector<int64_t>(), (std::vector<int64_t>{14}));
    const Tensor b = from_vector<int32_t>({static_cast<int32_t>(rank) + 5}, {1});
    c.broadcast(b, 2, "broadcast");
    EXPECT_EQ(b.to_vector<int32_t>(), (std::vector<int32_t>{7}));
    const Tensor gathered = c.all_gather(from_vector<float>({rank, -rank}, {2}), "gather");
    EXPECT_EQ(gathered.shape(), Shape({3, 2}));
    EXPECT_EQ(gathered.to_vector<float>(), (std::vector<float>{0, 0, 1, -1, 2, -2}));
    c.barrier("barrier");
  });
  for (const std::string& e : errors) EXPECT_EQ(e, "");
}

// Started reductions complete in any order of waiting, and the sum is the rank-order one on every
// rank, bit for bit: (1 + 1e8) - 1e8 is 0 in float32, where another order (rank 0's 1 added
// last) gives 1.
TEST(ThreadGroup, StartedReductionsOverlapAndSumInRankOrder) {
  const Ranks ranks = distributed::thread_group(3);
  std::vector<std::vector<float>> got(3);
  on_threads(ranks, [&](Communicator& c) {
    const float base = std::vector<float>{1, 1e8f, -1e8f}[static_cast<size_t>(c.rank())];
    const Tensor a = from_vector<float>({base, 3}, {2});
    const Tensor b = from_vector<float>({base * 2, 4}, {2});
    const distributed::Ticket ta = c.start_all_reduce(a, ReduceOp::sum, "bucket 0");
    const distributed::Ticket tb = c.start_all_reduce(b, ReduceOp::sum, "bucket 1");
    c.wait(tb);
    c.wait(ta);
    got[static_cast<size_t>(c.rank())] = a.to_vector<float>();
  });
  for (const std::vector<float>& rank : got) EXPECT_EQ(rank, (std::vector<float>{0, 9}));
}

TEST(ThreadGroup, ARankThatNeverComesEndsTheWaitWithinTheTimeout) {
  const Ranks ranks = distributed::thread_group(3);
  ranks[0]->set_timeout(std::chrono::milliseconds(200));
  const auto errors = on_threads(ranks, [](Communicator& c) {
    if (c.rank() == 2) return;
    c.all_reduce(from_vector<float>({1}, {1}), ReduceOp::sum, "all_reduce of gradient bucket 3");
  });
  EXPECT_THAT(errors[0] + errors[1],
              HasSubstr("all_reduce of gradient bucket 3 did not finish within 0.2 s"));
  EXPECT_THAT(errors[0] + errors[1], HasSubstr("replica 2 never joined it"));
  EXPECT_EQ(errors[2], "");
}

TEST(ThreadGroup, AnAbortEndsTheOtherRanksWaits) {
  const Ranks ranks = distributed::thread_group(2);
  const auto errors = on_threads(ranks, [](Communicator& c) {
    if (c.rank() == 1) c.abort("failed: out of memory");
    c.barrier("the epoch's barrier");
  });
  EXPECT_THAT(errors[0], HasSubstr("the epoch's barrier: replica 1 of 2: failed: out of memory"));
  EXPECT_THAT(errors[1], HasSubstr("replica 1 of 2: failed: out of memory"));
}

TEST(ThreadGroup, RanksIssuingDifferentCollectivesAreStopped) {
  const Ranks ranks = distributed::thread_group(2);
  const auto errors = on_threads(ranks, [](Communicator& c) {
    if (c.rank() == 0) {
      c.barrier("the first barrier");
    } else {
      c.all_reduce(from_vector<float>({1}, {1}), ReduceOp::sum, "an all_reduce");
    }
  });
  EXPECT_THAT(errors[0] + errors[1], HasSubstr("the replicas' steps differ"));
  EXPECT_NE(errors[0], "");
  EXPECT_NE(errors[1], "");
}

}  // namespace
}  // namespace kiln
