// Mirrored variables: a copy per replica, each replica (MirrorScope) reading and writing its own,
// and writes from outside every replica (loading weights, a callback) reaching all of them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

std::vector<float> read(const Variable& v, int replica) {
  const MirrorScope scope(replica);
  return v.value().to_vector<float>();
}

TEST(MirroredVariable, EachReplicaStartsFromTheValueInACopyOfItsOwn) {
  const Variable v(from_vector<float>({1, 2}, {2}), "kernel");
  EXPECT_FALSE(v.mirrored());
  v.mirror({Device::cpu(), Device::cpu(), Device::cpu()});
  EXPECT_TRUE(v.mirrored());
  for (int r = 0; r < 3; ++r) EXPECT_EQ(read(v, r), (std::vector<float>{1, 2})) << r;
  const MirrorScope first(1);
  const Tensor one = v.value();
  const MirrorScope second(2);
  EXPECT_NE(v.value().raw_data(), one.raw_data());
}

TEST(MirroredVariable, AReplicaWritesItsCopyAlone) {
  const Variable v(from_vector<float>({1, 2}, {2}));
  v.mirror({Device::cpu(), Device::cpu()});
  {
    const MirrorScope replica(1);
    v.assign_add(from_vector<float>({10, 10}, {2}));
  }
  EXPECT_EQ(read(v, 0), (std::vector<float>{1, 2}));
  EXPECT_EQ(read(v, 1), (std::vector<float>{11, 12}));
  // Outside every replica, reads see replica 0's copy.
  EXPECT_EQ(v.value().to_vector<float>(), (std::vector<float>{1, 2}));
}

TEST(MirroredVariable, AWriteFromOutsideTheReplicasReachesEveryCopy) {
  const Variable v(from_vector<float>({1, 2}, {2}));
  v.mirror({Device::cpu(), Device::cpu(), Device::cpu()});
  v.assign(from_vector<float>({7, 8}, {2}));
  for (int r = 0; r < 3; ++r) EXPECT_EQ(read(v, r), (std::vector<float>{7, 8})) << r;
}

// Mirrored again on the same devices (a layer shared by two models), the copies stay, since the
// steps traced for the replicas hold them, and take copy 0's value.
TEST(MirroredVariable, MirroringAgainKeepsTheCopiesAndResetsThemToCopyZero) {
  const Variable v(from_vector<float>({1}, {1}));
  v.mirror({Device::cpu(), Device::cpu()});
  const VariableState* copy = v.state()->mirrors[0].get();
  {
    const MirrorScope replica(1);
    v.assign(from_vector<float>({5}, {1}));
  }
  v.mirror({Device::cpu(), Device::cpu()});
  EXPECT_EQ(v.state()->mirrors[0].get(), copy);
  EXPECT_EQ(read(v, 1), (std::vector<float>{1}));
  v.mirror({Device::cpu(), Device::cpu(), Device::cpu()});
  EXPECT_EQ(read(v, 2), (std::vector<float>{1}));
}

TEST(MirroredVariable, MovingItEndsTheMirroring) {
  const Variable v(from_vector<float>({1}, {1}));
  v.mirror({Device::cpu(), Device::cpu()});
  v.move_to(Device::cpu());
  EXPECT_FALSE(v.mirrored());
}

// A variable made after the mirroring would be shared by the replicas: reading it is harmless (a
// constant), writing it from a replica other than the first is refused with the reason.
TEST(MirroredVariable, AReplicaWritingAnUnmirroredVariableIsRefused) {
  const Variable v(from_vector<float>({1}, {1}), "late_counter");
  const MirrorScope replica(1);
  EXPECT_EQ(v.value().to_vector<float>(), (std::vector<float>{1}));
  try {
    v.assign(from_vector<float>({2}, {1}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("variable 'late_counter' is written by replica 1"));
    EXPECT_THAT(e.what(), HasSubstr("make it before the first step"));
  }
}

}  // namespace
}  // namespace kiln
