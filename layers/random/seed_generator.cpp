#include "kiln/layers/random/seed_generator.h"

#include "kiln/framework/distributed/replica_context.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"

namespace kiln::layers {
namespace {

// Replica r keys its draws by the layer's key plus r * 2^40: a Philox key of its own.
constexpr int64_t kReplicaKeyStride = int64_t{1} << 40;

}  // namespace

SeedGenerator::SeedGenerator(std::optional<int64_t> seed, const std::string& name) {
  // A drawn seed comes from the process generator's next stream, so layers made in the same order
  // after the same set_seed get the same seeds.
  const int64_t key = seed ? *seed
                           : static_cast<int64_t>(random::default_generator().next_stream() ^
                                                  (random::default_generator().seed() << 20));
  state_ =
      Variable(from_vector<int64_t>({key, 0}, {2}), name.empty() ? "seed_generator" : name, false);
}

Tensor SeedGenerator::next() const {
  // Returns the advanced value rather than the current one: eagerly, a variable's value is its
  // live storage, which the assignment would overwrite.
  const Tensor current = state_.value();
  const Tensor advanced = current + from_vector<int64_t>({0, 1}, {2}, DType::i64, current.device());
  state_.assign(advanced);
  // Each replica of a data-parallel step draws its own stream (its own dropout masks, say) from
  // the one state every replica keeps alike; replica 0's is the single-device stream.
  const int replica = distributed::replica_context().id;
  if (replica == 0) return advanced;
  return advanced +
         from_vector<int64_t>({replica * kReplicaKeyStride, 0}, {2}, DType::i64, current.device());
}

}  // namespace kiln::layers
