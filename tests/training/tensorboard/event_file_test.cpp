// TensorBoard event files at the byte level: CRC32C and TFRecord framing against known values,
// records read back with their CRCs checked, a corrupt byte named by record and offset, and the
// histograms of weights.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kiln/framework/core/error.h"
#include "kiln/training/tensorboard/event_reader.h"
#include "kiln/training/tensorboard/event_writer.h"
#include "kiln/training/tensorboard/histogram.h"
#include "kiln/training/tensorboard/tfrecord.h"

namespace kiln::tensorboard {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  return dir.string();
}

TEST(TfRecord, Crc32cMatchesTheCastagnoliCheckValue) {
  // The standard check value of CRC-32C, and of the empty string.
  EXPECT_EQ(crc32c("123456789"), 0xe3069283u);
  EXPECT_EQ(crc32c(""), 0u);
}

// The bytes TensorFlow writes for the record "hello" (length, masked CRCs and all), from
//   python3 -c "import tensorflow as tf; w = tf.io.TFRecordWriter('r'); w.write(b'hello')"
TEST(TfRecord, FramesARecordAsTensorFlowDoes) {
  const std::string tensorflow{
      "\x05\x00\x00\x00\x00\x00\x00\x00\xea\xb2\x04\x3e"
      "hello\xbb\x1f\x1c\x19",
      21};
  EXPECT_EQ(frame_record("hello"), tensorflow);
}

TEST(TfRecord, ReadsRecordsBackAndNamesACorruptOne) {
  const std::string dir = fresh_dir("tfrecord");
  fs::create_directories(dir);
  const std::string path = dir + "/records";
  std::ofstream(path, std::ios::binary) << frame_record("first") << frame_record("second");
  EXPECT_EQ(read_records(path), (std::vector<std::string>{"first", "second"}));
  {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(21 + 12 + 2);  // a byte of the second record's data
    f.put('X');
  }
  try {
    read_records(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path + ": record 1 at byte 21: the data's CRC does not match"));
  }
}

TEST(Histogram, CountsEveryFiniteValueInEqualBuckets) {
  const Tensor values = from_vector<float>(
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, std::numeric_limits<float>::infinity()}, {11});
  const Histogram h = histogram(values, 3);
  EXPECT_EQ(h.min, 0);
  EXPECT_EQ(h.max, 9);
  EXPECT_EQ(h.num, 10);
  EXPECT_EQ(h.sum, 45);
  EXPECT_EQ(h.sum_squares, 285);
  EXPECT_EQ(h.bucket_limit, (std::vector<double>{3, 6, 9}));
  EXPECT_EQ(h.bucket, (std::vector<double>{3, 3, 4}));
  const Histogram constant = histogram(from_vector<float>({2, 2}, {2}));
  EXPECT_EQ(constant.bucket, (std::vector<double>{2}));
}

TEST(EventWriter, WritesTheVersionThenScalarsAndHistogramsReadBack) {
  const std::string dir = fresh_dir("event_writer");
  std::string path;
  {
    EventWriter writer(dir);
    path = writer.path();
    writer.add_scalar("epoch_loss", 0.25, 3);
    writer.add_histogram("dense/kernel/histogram", from_vector<float>({1, 2, 3}, {3}), 4);
  }
  EXPECT_THAT(fs::path(path).filename().string(), testing::StartsWith("events.out.tfevents."));
  EXPECT_EQ(event_files(dir), std::vector<std::string>{path});
  const std::vector<EventRecord> events = read_event_file(path);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].file_version, "brain.Event:2");
  EXPECT_GT(events[0].wall_time, 1.7e9);
  EXPECT_EQ(events[1].step, 3);
  ASSERT_EQ(events[1].scalars.size(), 1u);
  EXPECT_EQ(events[1].scalars[0].first, "epoch_loss");
  EXPECT_EQ(events[1].scalars[0].second, 0.25);
  ASSERT_EQ(events[2].histograms.size(), 1u);
  EXPECT_EQ(events[2].histograms[0].first, "dense/kernel/histogram");
  EXPECT_EQ(events[2].histograms[0].second.num, 3);
}

TEST(EventWriter, AnUnwritableDirectoryIsNamed) {
  const std::string file = fresh_dir("plain_file");
  std::ofstream(file) << "x";
  EXPECT_THROW(
      {
        try {
          EventWriter writer(file + "/logs");
        } catch (const Error& e) {
          EXPECT_THAT(e.what(), HasSubstr(file + "/logs"));
          throw;
        }
      },
      Error);
}

}  // namespace
}  // namespace kiln::tensorboard
