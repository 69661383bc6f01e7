// Making an NCCL communicator whose other rank never comes: the init gives up after the bootstrap's
// timeout with an error naming the rank, instead of hanging. Skips without a GPU (scripts/gpu-test
// runs it on one).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/nccl.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

// Rank 0 of two whose rank 1 never starts. Its broadcast of NCCL's unique id leaves rank 0's own.
class LoneRank final : public distributed::Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 2; }
  std::string_view backend() const override { return "lone"; }
  distributed::Ticket start_all_reduce(const Tensor&, distributed::ReduceOp,
                                       std::string what) override {
    throw Error(what + ": rank 1 never started");
  }
  void wait(distributed::Ticket) override {}
  void broadcast(const Tensor&, int, std::string) override {}
  Tensor all_gather(const Tensor&, std::string what) override {
    throw Error(what + ": rank 1 never started");
  }
  void barrier(std::string) override {}
  [[noreturn]] void abort(const std::string& reason) override { throw Error(reason); }
};

TEST(NcclInit, ARankThatNeverJoinsEndsTheInitWithAnErrorAfterTheTimeout) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device is visible";
  const auto bootstrap = std::make_shared<LoneRank>();
  bootstrap->set_timeout(std::chrono::milliseconds(500));
  const auto start = std::chrono::steady_clock::now();
  try {
    distributed::nccl_world(bootstrap, 0);
    FAIL() << "NCCL made a communicator of two ranks with one";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("NCCL's initialisation of rank 0 of 2 on cuda:0 did not "
                                    "finish within 0.5 s: another rank died or did not start"));
  }
  // Bounded, not hung: aborting the half-made communicator returns too.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

}  // namespace
}  // namespace kiln
