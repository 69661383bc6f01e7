// prefetch: same elements in the same order, errors re-thrown in the consumer, a clean stop
// when the iterator is destroyed mid-pass, and kernels on the worker kept to its own thread.
#include <gmock/gmock.h>
#include <omp.h>

#include <atomic>
#include <thread>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

TEST(Prefetch, YieldsTheUpstreamElementsInOrder) {
  const Dataset ds = range_dataset(1000).shuffle(64, 3).batch(10);
  EXPECT_EQ(values(ds.prefetch(2), 1), values(ds, 1));
  EXPECT_EQ(values(ds.prefetch(1).prefetch(5), 1), values(ds, 1));
  EXPECT_EQ(ds.prefetch(2).cardinality(), 100);
}

TEST(Prefetch, RethrowsAnUpstreamErrorAfterTheElementsBeforeIt) {
  const Dataset failing = range_dataset(5).map([](const Element& e) {
    KILN_CHECK(e[0].item<int64_t>() != 3, "bad element 3");
    return e;
  });
  Iterator it = failing.prefetch(2).iterator();
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(it.next()->at(0).item<int64_t>(), i);
  EXPECT_THAT(error_of([&] { it.next(); }), HasSubstr("bad element 3"));
  EXPECT_FALSE(it.next().has_value());
}

TEST(Prefetch, DestroyingTheIteratorMidPassStopsTheThread) {
  std::atomic<int64_t> produced{0};
  const Dataset endless = Dataset::from_generator([&produced] {
    return [&produced]() -> std::optional<Element> {
      return Element{scalar(static_cast<double>(produced++), DType::i64)};
    };
  });
  {
    Iterator it = endless.prefetch(4).iterator();
    EXPECT_EQ(it.next()->at(0).item<int64_t>(), 0);
    EXPECT_EQ(it.next()->at(0).item<int64_t>(), 1);
  }  // joins the worker; a leaked thread would keep incrementing `produced`
  const int64_t at_destruction = produced.load();
  // Two consumed, at most four queued and one waiting for space.
  EXPECT_LE(at_destruction, 2 + 4 + 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(produced.load(), at_destruction);
}

TEST(Prefetch, DestroyingAnUnusedIteratorIsClean) {
  for (int i = 0; i < 20; ++i)
    (void)range_dataset(100).map([](const Element& e) { return e; }).prefetch(2).iterator();
  SUCCEED();
}

// Ops a pipeline runs on the worker compute there alone: an OpenMP team of their own would
// compete with the training step's for the cores. The consumer keeps its pool.
TEST(Prefetch, TheWorkerRunsKernelsOnItsOwnThread) {
  const int pool = omp_get_max_threads();
  std::atomic<int> worker_team{0};
  const Dataset ds = range_dataset(4).map([&worker_team](const Element& e) {
    worker_team = omp_get_max_threads();
    return e;
  });
  EXPECT_EQ(values(ds.prefetch(2), 1).size(), 4u);
  EXPECT_EQ(worker_team.load(), 1);
  EXPECT_EQ(omp_get_max_threads(), pool);
}

TEST(Prefetch, RejectsAnEmptyBuffer) {
  EXPECT_THAT(error_of([] { (void)range_dataset(3).prefetch(0); }),
              HasSubstr("buffer_size must be at least 1"));
}

}  // namespace
}  // namespace kiln::datasets::testing
