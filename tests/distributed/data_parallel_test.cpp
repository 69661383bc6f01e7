// Data-parallel training across the ranks mpirun starts (tests/CMakeLists.txt runs this suite as
// 2 ranks on the CPU): each rank trains its shard of every global batch, and the replicas end
// where one device ends on the whole batches. Every rank also trains the one-device reference
// itself, so each compares locally.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/distributed/communicator.h"
#include "kiln/framework/distributed/mpi_communicator.h"
#include "kiln/training/model/trainer.h"
#include "tests/test_support/data_parallel_nets.h"

namespace kiln {
namespace {

using namespace layers;
using testing::data_of;
using testing::expect_trains_as_one_device;
using testing::kClasses;
using testing::kGlobalBatch;
using testing::kRows;
using testing::layers_of;
using testing::Net;

distribute::StrategyPtr two_cpu_replicas() {
  auto s =
      std::make_shared<distribute::MultiWorkerMirroredStrategy>(std::vector<std::string>{"cpu"});
  EXPECT_EQ(s->num_replicas_in_sync(), 2) << "run this suite as 2 ranks: mpirun -np 2";
  return s;
}

TEST(DataParallel, TwoReplicasOfTheMlpTrainAsOneDevice) {
  expect_trains_as_one_device(Net::mlp, kRows, two_cpu_replicas());
}

TEST(DataParallel, TwoReplicasOfTheCnnWithSynchronizedBatchNormTrainAsOneDevice) {
  expect_trains_as_one_device(Net::cnn, kRows, two_cpu_replicas());
}

TEST(DataParallel, TwoReplicasOfTheMaskedLstmTrainAsOneDevice) {
  expect_trains_as_one_device(Net::lstm, kRows, two_cpu_replicas());
}

// MirroredStrategy's replicas are threads of one process: under mpirun, each process would
// train alone.
TEST(DataParallel, MirroredUnderMpirunSaysToUseMultiWorker) {
  try {
    distribute::MirroredStrategy({"cpu", "cpu"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("use MultiWorkerMirroredStrategy"));
  }
}

TEST(DataParallel, AnOddLastBatchSplitsUnevenlyAndStillMatches) {
  const int64_t rows = 9 * kGlobalBatch + 37;
  expect_trains_as_one_device(Net::mlp, rows, two_cpu_replicas());
}

TEST(DataParallel, MovingStatisticsStayAlikeAndFiniteWhenAReplicaGetsNoRows) {
  const auto strategy = two_cpu_replicas();
  random::set_seed(21);
  reset_names();
  Sequential model(
      {Input({8, 8, 2}), Conv2D(4, {3, 3}), BatchNormalization(), Flatten(), Dense(kClasses)});
  model.compile({.optimizer = "adam",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .strategy = strategy});
  // The last global batch has one row: rank 1's shard of it is empty.
  const auto [x, y] = data_of(Net::cnn, 2 * kGlobalBatch + 1);
  const History h =
      model.fit(x, y, {.batch_size = kGlobalBatch, .epochs = 1, .verbose = 0, .shuffle = false});
  EXPECT_TRUE(std::isfinite(h.history.at("loss").back()));
  for (const Tensor& w : model.get_weights()) {
    const std::vector<float> both =
        strategy->communicator().all_gather(w, "weights").to_vector<float>();
    const size_t n = both.size() / 2;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(std::isfinite(both[i])) << "element " << i;
      ASSERT_EQ(both[i], both[n + i]) << "the replicas differ at element " << i;
    }
  }
}

TEST(DataParallel, EachBucketStartsReducingBeforeBackwardEnds) {
  const auto strategy = two_cpu_replicas();
  // The MLP's gradients (16, 128, 512 and 2048 bytes, last layer first) in 4 buckets of 256.
  strategy->set_bucket_bytes(256);
  random::set_seed(21);
  reset_names();
  Sequential model(layers_of(Net::mlp));
  model.compile(
      {.optimizer = "sgd", .loss = "sparse_categorical_crossentropy", .strategy = strategy});
  const auto [x, y] = data_of(Net::mlp, 2 * kGlobalBatch);
  model.fit(x, y, {.batch_size = kGlobalBatch, .epochs = 1, .verbose = 0, .shuffle = false});
  EXPECT_EQ(model.trainer().train_stats().traces, 1);
  const std::string graph = model.trainer().train_function()->graph_text();
  for (int bucket = 0; bucket < 4; ++bucket)
    EXPECT_NE(graph.find("bucket=" + std::to_string(bucket) + "}"), std::string::npos) << graph;
  EXPECT_EQ(graph.find("bucket=4}"), std::string::npos) << graph;
  // Where the first node of `op` for a gradient bucket (bucket >= 0) is in the printed graph.
  const auto first_for_a_bucket = [&](const std::string& op) {
    for (size_t at = graph.find(op + "("); at != std::string::npos; at = graph.find(op, at + 1))
      if (graph.compare(graph.find("bucket=", at), 9, "bucket=-1") != 0) return at;
    return std::string::npos;
  };
  // A bucket's reduction starts as soon as its gradient exists, before the step's last matmul
  // (another layer's kernel gradient), and is waited for only after it.
  const size_t last_matmul = graph.rfind("matmul(");
  EXPECT_LT(first_for_a_bucket("all_reduce_start"), last_matmul) << graph;
  const size_t first_wait = first_for_a_bucket("all_reduce_wait");
  ASSERT_NE(first_wait, std::string::npos) << graph;
  EXPECT_GT(first_wait, last_matmul) << graph;
}

TEST(DataParallel, TheRanksCollectivesCombineTheirValues) {
  const auto strategy = two_cpu_replicas();
  distributed::Communicator& c = strategy->communicator();
  const float rank = static_cast<float>(c.rank());
  const Tensor x = from_vector<float>({rank, 10 + rank}, {2});
  c.all_reduce(x, distributed::ReduceOp::sum, "sum");
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 21}));
  const Tensor m = from_vector<double>({rank * 4}, {1});
  c.all_reduce(m, distributed::ReduceOp::mean, "mean");
  EXPECT_EQ(m.to_vector<double>(), (std::vector<double>{2}));
  const Tensor top = from_vector<int64_t>({static_cast<int64_t>(rank) * 7}, {1});
  c.all_reduce(top, distributed::ReduceOp::max, "max");
  EXPECT_EQ(top.to_vector<int64_t>(), (std::vector<int64_t>{7}));
  const Tensor b = from_vector<int32_t>({static_cast<int32_t>(rank) + 5}, {1});
  c.broadcast(b, 1, "broadcast");
  EXPECT_EQ(b.to_vector<int32_t>(), (std::vector<int32_t>{6}));
  const Tensor gathered =
      c.all_gather(ops::cast(from_vector<float>({rank}, {1}), DType::bf16), "gather");
  EXPECT_EQ(gathered.shape(), Shape({2, 1}));
  EXPECT_EQ(ops::cast(gathered, DType::f32).to_vector<float>(), (std::vector<float>{0, 1}));
  c.barrier("barrier");
  // The ops over the same ranks, as a traced step runs them.
  EXPECT_EQ(ops::all_reduce(from_vector<float>({rank + 1}, {1})).to_vector<float>(),
            (std::vector<float>{3}));
}

}  // namespace
}  // namespace kiln
