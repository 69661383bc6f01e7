// The strategies made in a process mpirun did not start: one device trains alone; MirroredStrategy
// over several devices runs a thread per replica in this process, each with its own rank.
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
  EXPECT_EQ(mirrored.replica_threads(), nullptr);
}

TEST(Strategies, MirroredOverSeveralDevicesIsAThreadPerReplicaInThisProcess) {
  const auto mirrored = make_strategy("mirrored", {"cpu", "cpu", "cpu"});
  EXPECT_EQ(mirrored->class_name(), "MirroredStrategy");
  EXPECT_EQ(mirrored->num_replicas_in_sync(), 3);
  EXPECT_EQ(mirrored->replica_id(), 0);
  EXPECT_TRUE(mirrored->is_chief());
  EXPECT_EQ(mirrored->communicator().backend(), "threads");
  ASSERT_NE(mirrored->replica_threads(), nullptr);
  ReplicaThreads& threads = *mirrored->replica_threads();
  ASSERT_EQ(threads.size(), 3);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(threads.rank(r).rank(), r);
    EXPECT_EQ(threads.rank(r).size(), 3);
    EXPECT_TRUE(threads.device(r).is_cpu());
  }
}

TEST(Strategies, AnUnknownDeviceIsNamed) {
  try {
    MirroredStrategy({"cpu", "tpu:0"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("MirroredStrategy: device 'tpu:0'"));
  }
}

TEST(Strategies, OneDeviceStrategiesTakeOneDevice) {
  EXPECT_EQ(make_strategy("default", {}), nullptr);
  EXPECT_EQ(make_strategy("one_device", {"cpu"})->class_name(), "OneDeviceStrategy");
  EXPECT_THROW(make_strategy("one_device", {"cpu", "cpu"}), Error);
  EXPECT_THROW(make_strategy("parameter_server", {}), Error);
}

}  // namespace
}  // namespace kiln::distribute
