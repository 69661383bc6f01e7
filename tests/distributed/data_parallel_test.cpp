// Data-parallel training across the ranks mpirun starts (tests/CMakeLists.txt runs this suite as
// 2 ranks on the CPU): each rank trains its shard of every global batch, and the replicas end
// where one device ends on the whole batches. Every rank also trains the one-device reference
// itself, so each compares locally.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/distributed/communicator.h"
#include "kiln/framework/distributed/mpi_communicator.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/normalization/batch_normalization.h"
#include "kiln/layers/pooling/pooling.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/losses/losses.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/distribute/strategy.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"

namespace kiln {
namespace {

using namespace layers;

constexpr int64_t kGlobalBatch = 128;
constexpr int64_t kClasses = 4;
constexpr int64_t kVocabulary = 30;
constexpr int64_t kLength = 12;

enum class Net { mlp, cnn, lstm };

std::vector<LayerRef> layers_of(Net net) {
  switch (net) {
    case Net::mlp:
      return {Input({16}), Dense(32, {.activation = "relu"}), Dense(kClasses)};
    case Net::cnn:
      return {Input({8, 8, 2}),
              Conv2D(6, {3, 3}, {.activation = "relu"}),
              BatchNormalization({.synchronized = true}),
              MaxPooling2D(),
              Flatten(),
              Dense(kClasses)};
    case Net::lstm:
      return {Input({kLength}, DType::i32), Embedding(kVocabulary, 8, {.mask_zero = true}),
              LSTM(10), Dense(kClasses)};
  }
  return {};
}

// `rows` samples, the same on every rank: features (token ids zero-padded after a random
// length, for the LSTM) and labels learnable from them.
std::pair<Tensor, Tensor> data_of(Net net, int64_t rows) {
  random::Generator gen(5);
  if (net == Net::lstm) {
    Tensor tokens =
        ops::cast(random::uniform({rows, kLength}, 1, kVocabulary, DType::f32, gen, Device::cpu()),
                  DType::i32);
    const Tensor lengths =
        random::uniform({rows, 1}, 1, kLength + 1, DType::f32, gen, Device::cpu());
    std::vector<float> steps(kLength);
    for (int64_t t = 0; t < kLength; ++t) steps[static_cast<size_t>(t)] = static_cast<float>(t);
    const Tensor positions = from_vector(steps, {kLength}, DType::f32, Device::cpu());
    tokens = ops::where(ops::less(positions, lengths), tokens, ops::zeros_like(tokens));
    const Tensor labels =
        ops::cast(ops::div(ops::cast(ops::slice(tokens, {0, 0}, {rows, 1}), DType::f32),
                           static_cast<double>(kVocabulary) / kClasses),
                  DType::i64);
    return {tokens, ops::reshape(labels, {rows})};
  }
  const Shape sample = net == Net::mlp ? Shape({16}) : Shape({8, 8, 2});
  std::vector<int64_t> dims{rows};
  for (const int64_t d : sample.dims()) dims.push_back(d);
  const Tensor x = random::normal(Shape(dims), 0, 1, DType::f32, gen, Device::cpu());
  const Tensor first =
      ops::reshape(ops::slice(ops::reshape(x, {rows, -1}), {0, 0}, {rows, 1}), {rows});
  return {x, ops::cast(ops::clip(ops::add(first, 2.0), 0.0, kClasses - 1.0), DType::i64)};
}

struct Trained {
  History history;
  std::vector<double> step_losses;
  std::vector<Tensor> weights;
};

// `net` trained for one epoch over `rows` samples in global batches of kGlobalBatch, as one
// device or as the replicas of `strategy`.
Trained train(Net net, int64_t rows, const distribute::StrategyPtr& strategy) {
  random::set_seed(21);
  reset_names();
  Sequential model(layers_of(net));
  model.compile({.optimizer = "adam",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .metrics = {"accuracy"},
                 .strategy = strategy});
  Trained out;
  auto losses = std::make_shared<LambdaCallback>(
      LambdaCallbackHooks{.on_train_batch_end = [&](int64_t, const Logs& logs) {
        out.step_losses.push_back(logs.at("loss"));
      }});
  const auto [x, y] = data_of(net, rows);
  out.history = model.fit(x, y,
                          {.batch_size = kGlobalBatch,
                           .epochs = 1,
                           .verbose = 0,
                           .callbacks = {losses},
                           .shuffle = false});
  out.weights = model.get_weights();
  return out;
}

distribute::StrategyPtr two_cpu_replicas() {
  auto s =
      std::make_shared<distribute::MultiWorkerMirroredStrategy>(std::vector<std::string>{"cpu"});
  EXPECT_EQ(s->num_replicas_in_sync(), 2) << "run this suite as 2 ranks: mpirun -np 2";
  return s;
}

void expect_close(double got, double want, double tolerance, const std::string& what) {
  EXPECT_NEAR(got, want, tolerance * std::max(1.0, std::abs(want))) << what;
}

void expect_same_training(const Trained& replicas, const Trained& one, double tolerance) {
  ASSERT_EQ(replicas.step_losses.size(), one.step_losses.size());
  for (size_t i = 0; i < one.step_losses.size(); ++i)
    expect_close(replicas.step_losses[i], one.step_losses[i], tolerance,
                 "loss after step " + std::to_string(i + 1));
  for (const auto& [key, values] : one.history.history)
    expect_close(replicas.history.history.at(key).back(), values.back(), tolerance,
                 "epoch log " + key);
  ASSERT_EQ(replicas.weights.size(), one.weights.size());
  for (size_t w = 0; w < one.weights.size(); ++w) {
    const std::vector<float> got = replicas.weights[w].to_vector<float>();
    const std::vector<float> want = one.weights[w].to_vector<float>();
    ASSERT_EQ(got.size(), want.size());
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]) /
                                  std::max(1.0, std::abs(static_cast<double>(want[i]))));
    EXPECT_LE(worst, tolerance) << "weight " << w;
  }
}

// 50 full global batches.
constexpr int64_t kRows = 50 * kGlobalBatch;

TEST(DataParallel, TwoReplicasOfTheMlpTrainAsOneDevice) {
  const Trained one = train(Net::mlp, kRows, nullptr);
  expect_same_training(train(Net::mlp, kRows, two_cpu_replicas()), one, 1e-5);
}

TEST(DataParallel, TwoReplicasOfTheCnnWithSynchronizedBatchNormTrainAsOneDevice) {
  const Trained one = train(Net::cnn, kRows, nullptr);
  expect_same_training(train(Net::cnn, kRows, two_cpu_replicas()), one, 1e-5);
}

TEST(DataParallel, TwoReplicasOfTheMaskedLstmTrainAsOneDevice) {
  const Trained one = train(Net::lstm, kRows, nullptr);
  expect_same_training(train(Net::lstm, kRows, two_cpu_replicas()), one, 1e-5);
}

// MirroredStrategy over two local devices: one replica per process (rank i on devices[i]).
TEST(DataParallel, MirroredOverTwoLocalDevicesIsAReplicaPerRankTrainingAsOneDevice) {
  const auto mirrored =
      std::make_shared<distribute::MirroredStrategy>(std::vector<std::string>{"cpu", "cpu"});
  EXPECT_EQ(mirrored->class_name(), "MirroredStrategy");
  ASSERT_EQ(mirrored->num_replicas_in_sync(), 2);
  EXPECT_EQ(mirrored->replica_id(), distributed::launched_rank());
  EXPECT_EQ(mirrored->communicator().backend(), "mpi");
  const Trained one = train(Net::mlp, kRows, nullptr);
  expect_same_training(train(Net::mlp, kRows, mirrored), one, 1e-5);
}

TEST(DataParallel, AnOddLastBatchSplitsUnevenlyAndStillMatches) {
  const int64_t rows = 9 * kGlobalBatch + 37;
  const Trained one = train(Net::mlp, rows, nullptr);
  expect_same_training(train(Net::mlp, rows, two_cpu_replicas()), one, 1e-5);
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
