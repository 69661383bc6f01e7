#pragma once
// Keras learning-rate schedules (keras.optimizers.schedules): the rate as a function of the
// optimizer's step. A schedule is built from ops, so an optimizer evaluates it on its iterations
// variable inside a traced train step and the rate follows the step without retracing. Formulas,
// float32 arithmetic and config keys are Keras 3's.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::optimizers {

class LearningRateSchedule {
 public:
  virtual ~LearningRateSchedule() = default;
  // The rate at `step` (a scalar; computed in float32 as Keras does). Works eagerly and traced.
  virtual Tensor operator()(const Tensor& step) const = 0;
  // The rate at `step`, computed eagerly.
  double at(int64_t step) const;
  virtual std::string class_name() const = 0;  // "ExponentialDecay"
  // Keras's constructor arguments. A schedule that cannot be serialized keeps this default,
  // which throws (as Keras's base class does).
  virtual Config get_config() const;
};

using SchedulePtr = std::shared_ptr<const LearningRateSchedule>;

// ExponentialDecay's and InverseTimeDecay's arguments, Keras's names.
struct DecayRateOptions {
  double initial_learning_rate = 0;
  double decay_steps = 0;
  double decay_rate = 0;
  bool staircase = false;
  std::string name{};  // "" = the class name
};

// The shared form of ExponentialDecay and InverseTimeDecay: the same arguments and config keys,
// and a rate that depends on the step only through p = step / decay_steps, floored when
// `staircase`.
class DecayRateSchedule : public LearningRateSchedule {
 public:
  Tensor operator()(const Tensor& step) const override;
  Config get_config() const override;

 protected:
  // `schedule` names the class in argument errors and is the default name.
  DecayRateSchedule(DecayRateOptions options, std::string_view schedule);
  // The rate from p and the float32 scalars initial_learning_rate and decay_rate.
  virtual Tensor decay(const Tensor& initial_learning_rate, const Tensor& decay_rate,
                       const Tensor& p) const = 0;

 private:
  DecayRateOptions options_;
};

// initial_learning_rate * decay_rate ^ p.
class ExponentialDecay : public DecayRateSchedule {
 public:
  explicit ExponentialDecay(DecayRateOptions options);
  ExponentialDecay(double initial_learning_rate, double decay_steps, double decay_rate,
                   bool staircase = false, std::string name = "ExponentialDecay");
  std::string class_name() const override { return "ExponentialDecay"; }

 protected:
  Tensor decay(const Tensor& initial_learning_rate, const Tensor& decay_rate,
               const Tensor& p) const override;
};

struct PiecewiseConstantOptions {
  std::vector<double> boundaries{};
  std::vector<double> values{};
  std::string name = "PiecewiseConstant";
};

// values[0] while step <= boundaries[0], values[i] while boundaries[i-1] < step <=
// boundaries[i], and values.back() after the last boundary.
class PiecewiseConstantDecay : public LearningRateSchedule {
 public:
  explicit PiecewiseConstantDecay(PiecewiseConstantOptions options);
  PiecewiseConstantDecay(std::vector<double> boundaries, std::vector<double> values,
                         std::string name = "PiecewiseConstant");
  Tensor operator()(const Tensor& step) const override;
  std::string class_name() const override { return "PiecewiseConstantDecay"; }
  Config get_config() const override;

 private:
  PiecewiseConstantOptions options_;
};

struct CosineDecayOptions {
  double initial_learning_rate = 0;
  double decay_steps = 0;
  double alpha = 0;
  std::string name = "CosineDecay";
  std::optional<double> warmup_target{};
  double warmup_steps = 0;
};

// Half a cosine from initial_learning_rate down to alpha * initial_learning_rate over
// decay_steps, constant after. With a warmup_target, first a linear ramp from
// initial_learning_rate to warmup_target over warmup_steps, then the cosine from warmup_target.
class CosineDecay : public LearningRateSchedule {
 public:
  explicit CosineDecay(CosineDecayOptions options);
  CosineDecay(double initial_learning_rate, double decay_steps, double alpha = 0.0,
              std::string name = "CosineDecay", std::optional<double> warmup_target = std::nullopt,
              double warmup_steps = 0);
  Tensor operator()(const Tensor& step) const override;
  std::string class_name() const override { return "CosineDecay"; }
  Config get_config() const override;

 private:
  CosineDecayOptions options_;
};

// initial_learning_rate / (1 + decay_rate * p).
class InverseTimeDecay : public DecayRateSchedule {
 public:
  explicit InverseTimeDecay(DecayRateOptions options);
  InverseTimeDecay(double initial_learning_rate, double decay_steps, double decay_rate,
                   bool staircase = false, std::string name = "InverseTimeDecay");
  std::string class_name() const override { return "InverseTimeDecay"; }

 protected:
  Tensor decay(const Tensor& initial_learning_rate, const Tensor& decay_rate,
               const Tensor& p) const override;
};

// Keras's serialized form {"class_name": "ExponentialDecay", "config": {...}} (Keras's extra
// "module" and "registered_name" keys are accepted and ignored) or a run file's
// {ExponentialDecay: {...}}. Unknown class names and keys are errors with the closest known names.
SchedulePtr schedule_from_config(const Config& config);
// Makes a custom schedule class usable by name in configs; a taken name is an error.
using ScheduleFactory = std::function<SchedulePtr(const Config& config)>;
void register_schedule(const std::string& class_name, ScheduleFactory factory);
Config serialize(const LearningRateSchedule& schedule);
std::vector<std::string> known_schedule_names();

}  // namespace kiln::optimizers
