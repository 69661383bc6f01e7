// The strategies made in a process mpirun did not start: one device trains alone; MirroredStrategy
// over several devices, whose replicas are processes, says how to start them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/core/error.h"
#include "kiln/training/distribute/strategy.h"

namespace kiln::distribute {
namespace {

using testing::HasSubstr;

TEST(Strategies, MirroredOverOneDeviceIsThatDeviceAlone) {
  const MirroredStrategy mirrored({"cpu"});
  EXPECT_EQ(mirrored.num_replicas_in_sync(), 1);
  EXPECT_EQ(mirrored.replica_id(), 0);
  EXPECT_TRUE(mirrored.device().is_cpu());
  EXPECT_EQ(mirrored.communicator().backend(), "local");
  EXPECT_EQ(local_processes("mirrored", {"cpu", "cpu", "cpu"}), 3);
  EXPECT_EQ(local_processes("multi_worker", {"cpu", "cpu", "cpu"}), 1);
}

TEST(Strategies, MirroredOverSeveralDevicesOutsideMpirunSaysHowToStartTheReplicas) {
  try {
    MirroredStrategy({"cpu", "cpu"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("2 devices train as one process per device"));
    EXPECT_THAT(e.what(), HasSubstr("`kiln train` starts them itself"));
    EXPECT_THAT(e.what(), HasSubstr("mpirun -np 2"));
  }
  EXPECT_THROW(make_strategy("mirrored", {"cpu", "cpu"}), Error);
}

}  // namespace
}  // namespace kiln::distribute
