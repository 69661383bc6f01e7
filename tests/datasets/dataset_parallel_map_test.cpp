// map with num_parallel_calls: the same elements in the same order as the sequential map for any
// thread count, errors at their element after the ones before it, passes that end early, and
// workers that stop when the consumer goes away mid-pass.
#include <gmock/gmock.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

// Uneven work per element, so workers finish out of order.
Element slow_square(const Element& e) {
  const int64_t v = e[0].item<int64_t>();
  std::this_thread::sleep_for(std::chrono::microseconds((v * 37) % 200));
  return {scalar(static_cast<double>(v * v), DType::i64)};
}

TEST(ParallelMap, GivesTheSequentialOrderForAnyThreadCount) {
  const std::vector<int64_t> sequential = values(range_dataset(200).map(slow_square), 0);
  for (const int threads : {2, 3, 8, kAutotune}) {
    SCOPED_TRACE(threads);
    const Dataset ds = range_dataset(200).map(slow_square, threads);
    EXPECT_EQ(ds.cardinality(), 200);
    EXPECT_EQ(values(ds, 0), sequential);
    EXPECT_EQ(values(ds, 0), sequential);  // a second pass
  }
  EXPECT_TRUE(values(range_dataset(0).map(slow_square, 4), 0).empty());
}

TEST(ParallelMap, RunsSeveralCallsAtOnce) {
  std::atomic<int> running{0}, most{0};
  const Dataset ds = range_dataset(64).map(
      [&](const Element& e) {
        const int now = ++running;
        for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        --running;
        return e;
      },
      4);
  EXPECT_EQ(values(ds, 0).size(), 64u);
  EXPECT_GT(most.load(), 1);
  EXPECT_LE(most.load(), 4);
}

TEST(ParallelMap, AnErrorArrivesAtItsElementAfterTheOnesBefore) {
  const Dataset ds = range_dataset(50).map(
      [](const Element& e) {
        KILN_CHECK(e[0].item<int64_t>() != 17, "element 17 is bad");
        return slow_square(e);
      },
      4);
  Iterator pass = ds.iterator();
  for (int64_t i = 0; i < 17; ++i) EXPECT_EQ(pass.next()->at(0).item<int64_t>(), i * i);
  EXPECT_THAT(error_of([&] { (void)pass.next(); }), HasSubstr("element 17 is bad"));
  EXPECT_FALSE(pass.next().has_value());
}

TEST(ParallelMap, StopsWhenThePassIsDroppedMidway) {
  std::atomic<int> calls{0};
  {
    Iterator pass = range_dataset(100000)
                        .map(
                            [&](const Element& e) {
                              ++calls;
                              return e;
                            },
                            3)
                        .iterator();
    (void)pass.next();
  }
  // At most the elements in flight (2 * threads) were mapped beyond the one taken.
  EXPECT_LE(calls.load(), 1 + 2 * 3 + 3);
}

TEST(ParallelMap, RefusesAThreadCountBelowOne) {
  EXPECT_THAT(error_of([] { (void)range_dataset(3).map(slow_square, 0); }),
              HasSubstr("num_parallel_calls must be at least 1 or kAutotune, got 0"));
}

}  // namespace
}  // namespace kiln::datasets::testing
