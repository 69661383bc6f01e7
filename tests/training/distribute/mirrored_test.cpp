// MirroredStrategy over two CPU "devices" in this process: a thread per replica, each with its copy
// of the variables, trains as one device does on the whole global batches (and as two processes of
// MultiWorkerMirroredStrategy do: tests/distributed/). A replica that fails or stalls ends the
// step on every replica with an error naming it, never a hang.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/model/trainer.h"
#include "tests/test_support/data_parallel_nets.h"
#include "tests/test_support/expect_close.h"

namespace kiln {
namespace {

using layers::reset_names;
using testing::data_of;
using testing::expect_close_after_reductions;
using testing::expect_trains_as_one_device;
using ::testing::HasSubstr;
using testing::kGlobalBatch;
using testing::kRows;
using testing::layers_of;
using testing::Net;

distribute::StrategyPtr two_threads() {
  auto s = distribute::make_strategy("mirrored", {"cpu", "cpu"});
  EXPECT_NE(s->replica_threads(), nullptr);
  return s;
}

// The MLP from the fits' seed, compiled with SGD under `strategy`.
std::unique_ptr<Sequential> sgd_mlp(const distribute::StrategyPtr& strategy) {
  random::set_seed(21);
  reset_names();
  auto model = std::make_unique<Sequential>(layers_of(Net::mlp));
  model->compile(
      {.optimizer = "sgd", .loss = "sparse_categorical_crossentropy", .strategy = strategy});
  return model;
}

TEST(Mirrored, TwoReplicasOfTheMlpTrainAsOneDevice) {
  expect_trains_as_one_device(Net::mlp, kRows, two_threads());
}

TEST(Mirrored, TwoReplicasOfTheCnnWithSynchronizedBatchNormTrainAsOneDevice) {
  expect_trains_as_one_device(Net::cnn, kRows, two_threads());
}

TEST(Mirrored, TwoReplicasOfTheMaskedLstmTrainAsOneDevice) {
  expect_trains_as_one_device(Net::lstm, kRows, two_threads());
}

TEST(Mirrored, AnOddLastBatchSplitsUnevenlyAndStillMatches) {
  const int64_t rows = 9 * kGlobalBatch + 37;
  expect_trains_as_one_device(Net::mlp, rows, two_threads());
}

// The replicas' copies of every variable stay equal, and what the user reads (copy 0) is the
// trained value; evaluate and predict see it too.
TEST(Mirrored, TheReplicasCopiesStayEqualAndEvaluateAgrees) {
  const auto strategy = two_threads();
  random::set_seed(21);
  reset_names();
  Sequential model(layers_of(Net::cnn));
  model.compile({.optimizer = "adam",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .metrics = {"accuracy"},
                 .strategy = strategy});
  const auto [x, y] = data_of(Net::cnn, 4 * kGlobalBatch + 1);
  model.fit(x, y, {.batch_size = kGlobalBatch, .epochs = 2, .verbose = 0, .shuffle = false});
  for (const Variable& v : model.weights()) {
    ASSERT_TRUE(v.mirrored()) << v.name();
    const std::vector<float> first = v.value().to_vector<float>();
    const MirrorScope second(1);
    EXPECT_EQ(v.value().to_vector<float>(), first) << v.name();
  }
  const auto mirrored = model.evaluate(x, y, {.batch_size = kGlobalBatch, .verbose = 0});
  // The same weights evaluated by one device.
  reset_names();
  Sequential alone(layers_of(Net::cnn));
  alone.compile({.loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .metrics = {"accuracy"}});
  alone.set_weights(model.get_weights());
  const auto one = alone.evaluate(x, y, {.batch_size = kGlobalBatch, .verbose = 0});
  EXPECT_NEAR(mirrored.at("loss"), one.at("loss"), 1e-5);
  // The replicas' shards may take other kernels than the whole batch: a logit within rounding of
  // a tie may change one sample's class.
  EXPECT_NEAR(mirrored.at("accuracy"), one.at("accuracy"), 1.01 / static_cast<double>(x.dim(0)));
  // Predict splits the batches over the replicas too (tests/training/distribute/
  // mirrored_predict_test.cpp): to rounding.
  expect_close_after_reductions(model.predict(x, {.batch_size = kGlobalBatch}),
                                alone.predict(x, {.batch_size = kGlobalBatch}), 64,
                                "mirrored predict");
}

// Weights set from outside the replicas (a checkpoint restored, set_weights) reach every copy.
TEST(Mirrored, WeightsSetBetweenFitsReachEveryReplica) {
  const std::unique_ptr<Sequential> model = sgd_mlp(two_threads());
  const auto [x, y] = data_of(Net::mlp, 2 * kGlobalBatch);
  model->fit(x, y, {.batch_size = kGlobalBatch, .epochs = 1, .verbose = 0, .shuffle = false});
  std::vector<Tensor> zeros;
  for (const Tensor& w : model->get_weights()) zeros.push_back(ops::zeros_like(w));
  model->set_weights(zeros);
  for (const Variable& v : model->weights()) {
    const MirrorScope second(1);
    for (const float f : v.value().to_vector<float>()) ASSERT_EQ(f, 0.0f) << v.name();
  }
}

// Replica 0's train step traces once over full batches and the smaller last one (whose shards
// differ in size); its graph reduces the gradients.
TEST(Mirrored, TheFirstReplicasStepTracesOnceAndReducesTheGradients) {
  const std::unique_ptr<Sequential> model = sgd_mlp(two_threads());
  const auto [x, y] = data_of(Net::mlp, 3 * kGlobalBatch + 5);
  model->fit(x, y, {.batch_size = kGlobalBatch, .epochs = 2, .verbose = 0, .shuffle = false});
  EXPECT_EQ(model->trainer().train_stats().traces, 1);
  EXPECT_NE(model->trainer().train_function()->graph_text().find("all_reduce_start"),
            std::string::npos);
}

TEST(Mirrored, RunEagerlyIsRefusedWithTheReason) {
  reset_names();
  Sequential model(layers_of(Net::mlp));
  try {
    model.compile({.optimizer = "sgd",
                   .loss = "sparse_categorical_crossentropy",
                   .run_eagerly = true,
                   .strategy = two_threads()});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("run_eagerly is not supported"));
  }
}

// A replica whose step throws: the step fails on every replica with its error, in bounded time.
TEST(Mirrored, AFailingReplicaFailsTheStepWithItsError) {
  const auto strategy = two_threads();
  const auto start = std::chrono::steady_clock::now();
  try {
    strategy->replica_threads()->run([](int replica) {
      if (replica == 1) throw Error("replica 1 ran out of luck");
      // Replica 0 waits for a reduction replica 1 never joins.
      distributed::world().all_reduce(from_vector<float>({1}, {1}), distributed::ReduceOp::sum,
                                      "the test's all_reduce");
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("replica 1 ran out of luck"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  // The replicas start afresh: the next call's collectives meet again.
  std::vector<float> sums(2);
  strategy->replica_threads()->run([&](int replica) {
    const Tensor x = from_vector<float>({1}, {1});
    distributed::world().all_reduce(x, distributed::ReduceOp::sum, "the next call's all_reduce");
    sums[static_cast<size_t>(replica)] = x.item<float>();
  });
  EXPECT_EQ(sums, (std::vector<float>{2, 2}));
}

// A replica that stalls: the others give up after the timeout, naming the collective and it.
TEST(Mirrored, AStalledReplicaEndsTheOthersWithinTheTimeout) {
  const auto strategy = two_threads();
  strategy->set_timeout(std::chrono::milliseconds(300));
  try {
    strategy->replica_threads()->run([](int replica) {
      if (replica == 1) {
        std::this_thread::sleep_for(std::chrono::seconds(2));
        return;
      }
      distributed::world().all_reduce(from_vector<float>({1}, {1}), distributed::ReduceOp::sum,
                                      "all_reduce of gradient bucket 0");
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("all_reduce of gradient bucket 0 did not finish within 0.3 s"));
    EXPECT_THAT(e.what(), HasSubstr("replica 1 never joined it"));
  }
}

}  // namespace
}  // namespace kiln
