// DeferredFrees, the caching allocator's list of freed blocks that other streams still use: a
// block comes back for reuse only once every use recorded on it has finished, and the events it
// holds are let go of as they complete or when it is destroyed.
#include "kiln/framework/backends/deferred_frees.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// An event a test completes by hand. Its flag's use count tells how many copies the list holds.
class FakeEvent {
 public:
  explicit FakeEvent(std::shared_ptr<bool> completed) : completed_(std::move(completed)) {}
  bool done() const { return *completed_; }

 private:
  std::shared_ptr<bool> completed_;
};

using Frees = DeferredFrees<FakeEvent>;
using Block = Frees::Block;

// A use of a block on another stream, still running until complete().
struct Use {
  std::shared_ptr<bool> completed = std::make_shared<bool>(false);
  FakeEvent event() const { return FakeEvent(completed); }
  void complete() const { *completed = true; }
  long held() const { return completed.use_count() - 1; }  // events the list still holds
};

int a_block = 0;
int another_block = 0;
void* const p = &a_block;
void* const q = &another_block;

TEST(DeferredFrees, ABlockNoOtherStreamUsedIsFreeAtOnce) {
  Frees frees;
  EXPECT_TRUE(frees.release(p, 512));
  EXPECT_THAT(frees.collect_ready(), IsEmpty());
}

TEST(DeferredFrees, ABlockInUseElsewhereComesBackOnlyOnceTheUseFinishes) {
  Frees frees;
  const Use use;
  frees.record_use(p, use.event());
  EXPECT_FALSE(frees.release(p, 512));
  EXPECT_THAT(frees.collect_ready(), IsEmpty());
  EXPECT_THAT(frees.waiting(), ElementsAre(Block{p, 512}));

  use.complete();
  EXPECT_THAT(frees.collect_ready(), ElementsAre(Block{p, 512}));
  EXPECT_EQ(use.held(), 0);
  EXPECT_THAT(frees.collect_ready(), IsEmpty());
  EXPECT_THAT(frees.waiting(), IsEmpty());
}

TEST(DeferredFrees, EveryUseMustFinish) {
  Frees frees;
  const Use first;
  const Use second;
  frees.record_use(p, first.event());
  frees.record_use(p, second.event());
  EXPECT_FALSE(frees.release(p, 1024));

  second.complete();
  EXPECT_THAT(frees.collect_ready(), IsEmpty());
  first.complete();
  EXPECT_THAT(frees.collect_ready(), ElementsAre(Block{p, 1024}));
}

TEST(DeferredFrees, UsesThatFinishedBeforeTheFreeDoNotDelayIt) {
  Frees frees;
  const Use use;
  frees.record_use(p, use.event());
  use.complete();
  EXPECT_TRUE(frees.release(p, 512));
  EXPECT_EQ(use.held(), 0);
}

TEST(DeferredFrees, ABlockUsedOverAndOverKeepsOnlyItsUnfinishedUses) {
  Frees frees;
  const Use earlier;
  frees.record_use(p, earlier.event());
  earlier.complete();
  const Use later;
  frees.record_use(p, later.event());
  EXPECT_EQ(earlier.held(), 0);
  EXPECT_EQ(later.held(), 1);
}

TEST(DeferredFrees, BlocksWaitIndependently) {
  Frees frees;
  const Use on_p;
  const Use on_q;
  frees.record_use(p, on_p.event());
  frees.record_use(q, on_q.event());
  EXPECT_FALSE(frees.release(p, 512));
  EXPECT_FALSE(frees.release(q, 2048));

  on_q.complete();
  EXPECT_THAT(frees.collect_ready(), ElementsAre(Block{q, 2048}));
  EXPECT_THAT(frees.waiting(), ElementsAre(Block{p, 512}));
}

TEST(DeferredFrees, DestroyingTheListLetsGoOfEveryEvent) {
  const Use released;
  const Use in_use;
  {
    Frees frees;
    frees.record_use(p, released.event());
    frees.record_use(q, in_use.event());
    EXPECT_FALSE(frees.release(p, 512));
  }
  EXPECT_EQ(released.held(), 0);
  EXPECT_EQ(in_use.held(), 0);
}

}  // namespace
}  // namespace kiln
