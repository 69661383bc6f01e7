// MirroredStrategy's predict, as in Keras: each replica thread predicts its shard of every batch
// and the outputs come back joined in row order, equal to one device's up to the rounding of
// kernels picked for other batch sizes. Before any fit, for every output of a model, and for a
// batch with fewer rows than replicas.
#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "kiln/engine/function/function_options.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/layers/core/lambda.h"
#include "kiln/training/model/trainer.h"
#include "tests/test_support/data_parallel_nets.h"
#include "tests/test_support/expect_close.h"

namespace kiln {
namespace {

using layers::Lambda;
using layers::reset_names;
using testing::data_of;
using testing::expect_close_after_reductions;
using testing::kGlobalBatch;
using testing::layers_of;
using testing::Net;

// The longest reduction in the nets below (the CNN's Dense over 3 * 3 * 6 features).
constexpr int64_t kReduction = 64;

distribute::StrategyPtr two_threads() {
  return distribute::make_strategy("mirrored", {"cpu", "cpu"});
}

// The replicas that traced a predict step through it; the identity on the values.
class ReplicaLog {
 public:
  layers::LayerRef layer() {
    return Lambda([this](const Tensor& x) {
      const std::lock_guard lock(mutex_);
      replicas_.insert(distributed::replica_context().id);
      return x;
    });
  }
  std::set<int> replicas() {
    const std::lock_guard lock(mutex_);
    return replicas_;
  }

 private:
  std::mutex mutex_;
  std::set<int> replicas_;
};

// `net` under two replica threads and on one device with the same weights, neither trained, both
// compiled with SGD.
struct Pair {
  std::unique_ptr<Sequential> mirrored;
  std::unique_ptr<Sequential> alone;
};

Pair pair_of(Net net, ReplicaLog& log) {
  reset_names();
  random::set_seed(21);
  std::vector<layers::LayerRef> stack = layers_of(net);
  stack.push_back(log.layer());
  Pair p;
  p.mirrored = std::make_unique<Sequential>(std::move(stack));
  p.mirrored->compile(
      {.optimizer = "sgd", .loss = "sparse_categorical_crossentropy", .strategy = two_threads()});
  reset_names();
  p.alone = std::make_unique<Sequential>(layers_of(net));
  p.alone->compile({.optimizer = "sgd", .loss = "sparse_categorical_crossentropy"});
  p.alone->set_weights(p.mirrored->get_weights());
  return p;
}

class MirroredPredict : public ::testing::TestWithParam<Net> {};

// Two full batches and a last one of 3 rows (shards of 2 and 1): every replica predicts, the
// first replica's step traces once over all its shard sizes, and the rows keep their order.
TEST_P(MirroredPredict, EachReplicaPredictsItsShardAndTheRowsKeepTheirOrder) {
  ReplicaLog log;
  const Pair p = pair_of(GetParam(), log);
  const Tensor x = data_of(GetParam(), 2 * kGlobalBatch + 3).first;
  const Tensor got = p.mirrored->predict(x, {.batch_size = kGlobalBatch});
  expect_close_after_reductions(got, p.alone->predict(x, {.batch_size = kGlobalBatch}), kReduction,
                                "mirrored predict");
  EXPECT_EQ(log.replicas(), (std::set<int>{0, 1}));
  EXPECT_EQ(p.mirrored->trainer().predict_stats().traces, 1);
  // Predicting gave the weights their replica copies, with the values every replica read.
  for (const Variable& v : p.mirrored->weights()) {
    ASSERT_TRUE(v.mirrored()) << v.name();
    const std::vector<float> first = v.value().to_vector<float>();
    const MirrorScope second(1);
    EXPECT_EQ(v.value().to_vector<float>(), first) << v.name();
  }
}

INSTANTIATE_TEST_SUITE_P(Nets, MirroredPredict, ::testing::Values(Net::mlp, Net::cnn, Net::lstm),
                         [](const ::testing::TestParamInfo<Net>& param) {
                           switch (param.param) {
                             case Net::mlp:
                               return "Mlp";
                             case Net::cnn:
                               return "CnnWithSynchronizedBatchNorm";
                             case Net::lstm:
                               return "MaskedLstm";
                           }
                           return "";
                         });

// One row cannot be split: replica 0 predicts it alone, and no other replica traces.
TEST(MirroredPredictSmall, ASingleRowIsTheFirstReplicas) {
  ReplicaLog log;
  const Pair p = pair_of(Net::mlp, log);
  const Tensor x = data_of(Net::mlp, 1).first;
  expect_close_after_reductions(p.mirrored->predict_on_batch({x})[0],
                                p.alone->predict_on_batch({x})[0], kReduction, "one row");
  EXPECT_EQ(log.replicas(), std::set<int>{0});
}

// A predict before fit gives the weights their copies; fit's training reaches every copy, and
// the replicas' predict steps, traced before it, read the trained values.
TEST(MirroredPredictSmall, PredictStepsTracedBeforeFitSeeTheTrainedWeights) {
  ReplicaLog log;
  const Pair p = pair_of(Net::mlp, log);
  const auto [x, y] = data_of(Net::mlp, 2 * kGlobalBatch);
  const Tensor before = p.mirrored->predict(x, {.batch_size = kGlobalBatch});
  p.mirrored->fit(x, y, {.batch_size = kGlobalBatch, .epochs = 1, .verbose = 0});
  const Tensor after = p.mirrored->predict(x, {.batch_size = kGlobalBatch});
  p.alone->set_weights(p.mirrored->get_weights());
  expect_close_after_reductions(after, p.alone->predict(x, {.batch_size = kGlobalBatch}),
                                kReduction, "predict after fit");
  EXPECT_NE(after.to_vector<float>(), before.to_vector<float>());
}

// Functions switched to eager (debugging): replica 0 predicts every row, so the model's C++ code
// runs on one thread.
TEST(MirroredPredictSmall, EagerFunctionsLeaveEveryRowToTheFirstReplica) {
  ReplicaLog log;
  const Pair p = pair_of(Net::mlp, log);
  const Tensor x = data_of(Net::mlp, 10).first;
  const Tensor want = p.alone->predict(x, {.batch_size = 4});
  struct EagerFunctions {
    EagerFunctions() { run_functions_eagerly(true); }
    ~EagerFunctions() { run_functions_eagerly(false); }
  };
  Tensor got;
  {
    const EagerFunctions eager;
    got = p.mirrored->predict(x, {.batch_size = 4});
  }
  expect_close_after_reductions(got, want, kReduction, "eager predict");
  EXPECT_EQ(log.replicas(), std::set<int>{0});
}

// Each output is joined on its own: a model with two heads of different widths.
TEST(MirroredPredictSmall, EveryOutputIsJoinedInRowOrder) {
  const auto two_heads = [](const distribute::StrategyPtr& strategy) {
    reset_names();
    random::set_seed(3);
    const auto in = layers::Input({16});
    const auto h = layers::Dense(8, {.activation = "tanh"})(in);
    auto model = std::make_unique<Model>(
        std::vector{in}, std::vector{layers::Dense(3)(h), layers::Dense(1)(h)}, "two_heads");
    model->compile({.loss = "mse", .strategy = strategy});
    return model;
  };
  const std::unique_ptr<Model> mirrored = two_heads(two_threads());
  const std::unique_ptr<Model> alone = two_heads(nullptr);
  alone->set_weights(mirrored->get_weights());
  const Tensor x = data_of(Net::mlp, 7).first;
  const std::vector<Tensor> got = mirrored->predict(std::vector{x}, {.batch_size = 4});
  const std::vector<Tensor> want = alone->predict(std::vector{x}, {.batch_size = 4});
  ASSERT_EQ(got.size(), 2u);
  for (size_t o = 0; o < got.size(); ++o)
    expect_close_after_reductions(got[o], want[o], kReduction, "output " + std::to_string(o));
}

}  // namespace
}  // namespace kiln
