#pragma once
// What Model::compile takes, Keras-style: each of optimizer, loss and metrics by name ("adam",
// "sparse_categorical_crossentropy", "accuracy") or as an object.
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/losses/loss.h"
#include "kiln/optimizers/optimizer.h"
#include "kiln/training/distribute/strategy.h"
#include "kiln/training/metrics/metric.h"

namespace kiln {

struct OptimizerArg {
  optimizers::OptimizerPtr optimizer;
  std::string name;  // resolved at compile when optimizer is null
  OptimizerArg(const char* n) : name(n) {}
  OptimizerArg(std::string n) : name(std::move(n)) {}
  template <typename O>
  requires std::derived_from<O, optimizers::Optimizer> OptimizerArg(std::shared_ptr<O> o)
      : optimizer(std::move(o)) {}
};

struct LossArg {
  losses::LossPtr loss;
  std::string name;
  LossArg() = default;
  LossArg(const char* n) : name(n) {}
  LossArg(std::string n) : name(std::move(n)) {}
  template <typename L>
  requires std::derived_from<L, losses::Loss> LossArg(std::shared_ptr<L> l) : loss(std::move(l)) {}
  bool empty() const { return !loss && name.empty(); }
};

struct MetricArg {
  metrics::MetricPtr metric;
  std::string name;
  MetricArg(const char* n) : name(n) {}
  MetricArg(std::string n) : name(std::move(n)) {}
  template <typename M>
  requires std::derived_from<M, metrics::Metric> MetricArg(std::shared_ptr<M> m)
      : metric(std::move(m)) {}
};

// Which input shapes share a trace of the train, test and predict steps.
enum class StepShapes {
  // Any batch size, and any size where the model's inputs declare an unknown dim (Input({-1})):
  // one trace for sequences of every length.
  model_inputs,
  // One trace per distinct input shape apart from the batch size, as tf.function without a
  // signature does (which retraces for a smaller last batch too): every new sequence length
  // retraces.
  exact,
  // exact until a second shape arrives, then one trace with the differing dims unknown
  // (tf.function's reduce_retracing).
  reduce_retracing,
};

struct CompileOptions {
  OptimizerArg optimizer = "rmsprop";  // Keras's default
  // One loss for every output, or one per output in `losses`.
  LossArg loss = {};
  std::vector<LossArg> losses = {};
  std::vector<double> loss_weights = {};  // per output; default 1
  // Applied to every output (prefixed with the output's name when there are several), unweighted:
  // sample and class weights reach only the loss and weighted_metrics, as in Keras. An output's
  // mask weighs its masked steps 0 in both.
  std::vector<MetricArg> metrics = {};
  // Weighted by the sample (and class) weights; named "weighted_<name>" where a metric of the
  // same name is in `metrics`.
  std::vector<MetricArg> weighted_metrics = {};
  bool run_eagerly = false;
  // Batches per traced call: fewer calls into the engine on small models.
  int64_t steps_per_execution = 1;
  StepShapes step_shapes = StepShapes::model_inputs;
  // Where the model trains: "cpu", "cuda" or "cuda:N". Empty: the DeviceScope's device when
  // compile runs inside one, else cuda:0 when this build has CUDA and a GPU is visible, else the
  // CPU (as TensorFlow places a Keras model). A named device that is missing is an error, never a
  // silent fallback.
  std::string device = "";
  // The replicas the model trains as (training/distribute/strategy.h). Null: the StrategyScope's
  // strategy when compile runs inside one, else one replica. The strategy's device is the
  // model's unless `device` names one.
  distribute::StrategyPtr strategy = nullptr;
};

}  // namespace kiln
