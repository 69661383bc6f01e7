// A random layer's draws per replica of a data-parallel step: replica 0 draws the one-device
// stream, every other replica a stream of its own, and the state they keep advances alike.
#include <gtest/gtest.h>

#include "kiln/framework/distributed/replica_context.h"
#include "kiln/layers/random/seed_generator.h"

namespace kiln::layers {
namespace {

std::vector<int64_t> draw(const SeedGenerator& g, distributed::ReplicaContext replica) {
  const distributed::ReplicaScope scope(replica);
  return g.next().to_vector<int64_t>();
}

TEST(ReplicaStreams, EachReplicaDrawsItsOwnSeedFromTheSharedState) {
  const SeedGenerator alone(7), first(7), second(7);
  const std::vector<int64_t> one_device = draw(alone, {0, 1});
  EXPECT_EQ(draw(first, {0, 2}), one_device);
  const std::vector<int64_t> other = draw(second, {1, 2});
  EXPECT_NE(other[0], one_device[0]);
  EXPECT_EQ(other[1], one_device[1]);
  // The state (what checkpoints hold) is the same on every replica.
  EXPECT_EQ(first.state().value().to_vector<int64_t>(),
            second.state().value().to_vector<int64_t>());
}

}  // namespace
}  // namespace kiln::layers
