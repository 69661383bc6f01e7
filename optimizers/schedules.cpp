#include "kiln/optimizers/schedules.h"

#include <algorithm>
#include <functional>
#include <numbers>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/keras_object.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/optimizers/trainable_values.h"

namespace kiln::optimizers {
namespace {

// Keras computes every schedule in the dtype of its initial rate, float32.
Tensor as_float32(const Tensor& step) {
  return step.dtype() == DType::f32 ? step : ops::cast(step, DType::f32);
}

// A scalar constant next to `like` (same dtype and device), for ops that need two tensors.
Tensor constant_like(double value, const Tensor& like) {
  return scalar(value, like.dtype(), like.device());
}

// kiln has no floor op; truncation toward zero is floor here because steps are never negative.
Tensor floor_nonnegative(const Tensor& x) {
  return ops::cast(ops::cast(x, DType::i64), x.dtype());
}

void check_decay_steps(double decay_steps, std::string_view schedule) {
  check_positive(decay_steps, detail::concat(schedule, ": decay_steps"));
}

// Reads a DecayRateSchedule's config (both share their keys); the name defaults to the class
// name, as in Keras.
template <class Schedule>
ScheduleFactory decay_rate_factory(std::string class_name) {
  return [class_name = std::move(class_name)](const Config& c) {
    c.check_keys({"initial_learning_rate", "decay_steps", "decay_rate", "staircase", "name"},
                 "schedule " + class_name);
    return std::make_shared<Schedule>(c["initial_learning_rate"].as_double(),
                                      c["decay_steps"].as_double(), c["decay_rate"].as_double(),
                                      c.get_bool("staircase", false),
                                      c.get_string("name", class_name));
  };
}

NamedRegistry<ScheduleFactory>& registry() {
  static NamedRegistry<ScheduleFactory> r = [] {
    NamedRegistry<ScheduleFactory> built("learning-rate schedule");
    built.add("ExponentialDecay", decay_rate_factory<ExponentialDecay>("ExponentialDecay"));
    built.add("PiecewiseConstantDecay", [](const Config& c) -> SchedulePtr {
      c.check_keys({"boundaries", "values", "name"}, "schedule PiecewiseConstantDecay");
      return std::make_shared<PiecewiseConstantDecay>(c["boundaries"].as_double_list(),
                                                      c["values"].as_double_list(),
                                                      c.get_string("name", "PiecewiseConstant"));
    });
    built.add("CosineDecay", [](const Config& c) -> SchedulePtr {
      c.check_keys({"initial_learning_rate", "decay_steps", "alpha", "name", "warmup_target",
                    "warmup_steps"},
                   "schedule CosineDecay");
      const Config* target = c.find("warmup_target");
      return std::make_shared<CosineDecay>(
          c["initial_learning_rate"].as_double(), c["decay_steps"].as_double(),
          c.get_double("alpha", 0.0), c.get_string("name", "CosineDecay"),
          target == nullptr || target->is_null() ? std::nullopt
                                                 : std::optional(target->as_double()),
          c.get_double("warmup_steps", 0));
    });
    built.add("InverseTimeDecay", decay_rate_factory<InverseTimeDecay>("InverseTimeDecay"));
    return built;
  }();
  return r;
}

}  // namespace

double LearningRateSchedule::at(int64_t step) const {
  return (*this)(scalar(static_cast<double>(step), DType::f32, Device::cpu())).item<double>();
}

Config LearningRateSchedule::get_config() const {
  throw Error("learning-rate schedule '" + class_name() +
              "' must override get_config() to be serializable");
}

// ---- DecayRateSchedule ----

DecayRateSchedule::DecayRateSchedule(double initial_learning_rate, double decay_steps,
                                     double decay_rate, bool staircase, std::string name,
                                     std::string_view schedule)
    : initial_learning_rate_(initial_learning_rate),
      decay_steps_(decay_steps),
      decay_rate_(decay_rate),
      staircase_(staircase),
      name_(std::move(name)) {
  check_learning_rate(initial_learning_rate, detail::concat(schedule, ": initial_learning_rate"));
  check_decay_steps(decay_steps, schedule);
  check_non_negative(decay_rate, detail::concat(schedule, ": decay_rate"));
}

Tensor DecayRateSchedule::operator()(const Tensor& step) const {
  const Tensor s = as_float32(step);
  Tensor p = s / decay_steps_;
  if (staircase_) p = floor_nonnegative(p);
  return decay(constant_like(initial_learning_rate_, s), constant_like(decay_rate_, s), p);
}

Config DecayRateSchedule::get_config() const {
  return Config::map()
      .set("initial_learning_rate", initial_learning_rate_)
      .set("decay_steps", decay_steps_)
      .set("decay_rate", decay_rate_)
      .set("staircase", staircase_)
      .set("name", name_);
}

// ---- ExponentialDecay ----

ExponentialDecay::ExponentialDecay(double initial_learning_rate, double decay_steps,
                                   double decay_rate, bool staircase, std::string name)
    : DecayRateSchedule(initial_learning_rate, decay_steps, decay_rate, staircase, std::move(name),
                        "ExponentialDecay") {}

Tensor ExponentialDecay::decay(const Tensor& initial_learning_rate, const Tensor& decay_rate,
                               const Tensor& p) const {
  return initial_learning_rate * ops::pow(decay_rate, p);
}

// ---- PiecewiseConstantDecay ----

PiecewiseConstantDecay::PiecewiseConstantDecay(std::vector<double> boundaries,
                                               std::vector<double> values, std::string name)
    : boundaries_(std::move(boundaries)), values_(std::move(values)), name_(std::move(name)) {
  KILN_CHECK(!boundaries_.empty() && boundaries_.size() + 1 == values_.size(),
             "PiecewiseConstantDecay: needs one value more than boundaries and at least one "
             "boundary, got ",
             boundaries_.size(), " boundaries and ", values_.size(), " values");
  for (const double b : boundaries_) check_finite(b, "PiecewiseConstantDecay: a boundary");
  KILN_CHECK(std::is_sorted(boundaries_.begin(), boundaries_.end()),
             "PiecewiseConstantDecay: boundaries must be increasing, got ",
             Config(boundaries_).to_json());
  for (const double v : values_) check_learning_rate(v, "PiecewiseConstantDecay: a value");
}

Tensor PiecewiseConstantDecay::operator()(const Tensor& step) const {
  const Tensor s = as_float32(step);
  // The sum of value_i times "step lies in interval i": exactly one indicator is 1.
  const auto in = [&](const Tensor& condition, double value) {
    return ops::cast(condition, DType::f32) * value;
  };
  Tensor result = in(ops::less_equal(s, constant_like(boundaries_.front(), s)), values_.front());
  result = result + in(ops::greater(s, boundaries_.back()), values_.back());
  for (size_t i = 1; i < boundaries_.size(); ++i) {
    const Tensor inside = ops::logical_and(ops::greater(s, boundaries_[i - 1]),
                                           ops::less_equal(s, constant_like(boundaries_[i], s)));
    result = result + in(inside, values_[i]);
  }
  return result;
}

Config PiecewiseConstantDecay::get_config() const {
  return Config::map()
      .set("boundaries", Config(boundaries_))
      .set("values", Config(values_))
      .set("name", name_);
}

// ---- CosineDecay ----

CosineDecay::CosineDecay(double initial_learning_rate, double decay_steps, double alpha,
                         std::string name, std::optional<double> warmup_target, double warmup_steps)
    : initial_learning_rate_(initial_learning_rate),
      decay_steps_(decay_steps),
      alpha_(alpha),
      name_(std::move(name)),
      warmup_target_(warmup_target),
      warmup_steps_(warmup_steps) {
  check_learning_rate(initial_learning_rate, "CosineDecay: initial_learning_rate");
  check_decay_steps(decay_steps, "CosineDecay");
  check_finite(alpha, "CosineDecay: alpha");
  if (warmup_target) check_learning_rate(*warmup_target, "CosineDecay: warmup_target");
  check_non_negative(warmup_steps, "CosineDecay: warmup_steps");
}

Tensor CosineDecay::operator()(const Tensor& step) const {
  const Tensor s = as_float32(step);
  const Tensor decay_steps = constant_like(decay_steps_, s);
  // The cosine from `from` at `decay_step` of decay_steps.
  const auto decay = [&](const Tensor& decay_step, const Tensor& from) {
    const Tensor fraction = decay_step / decay_steps;
    const Tensor cosine = (ops::cos(constant_like(std::numbers::pi, s) * fraction) + 1.0) * 0.5;
    return from * (cosine * (1.0 - alpha_) + alpha_);
  };
  const Tensor initial = constant_like(initial_learning_rate_, s);
  if (!warmup_target_) return decay(ops::minimum(s, decay_steps), initial);

  const Tensor target = constant_like(*warmup_target_, s);
  const Tensor warmup_steps = constant_like(warmup_steps_, s);
  const Tensor clamped = ops::minimum(s, decay_steps + warmup_steps);
  const Tensor warmup = (target - initial) * (clamped / warmup_steps) + initial;
  return ops::where(ops::less(clamped, warmup_steps), warmup,
                    decay(clamped - warmup_steps, target));
}

Config CosineDecay::get_config() const {
  return Config::map()
      .set("initial_learning_rate", initial_learning_rate_)
      .set("decay_steps", decay_steps_)
      .set("alpha", alpha_)
      .set("name", name_)
      .set("warmup_target", warmup_target_ ? Config(*warmup_target_) : Config())
      .set("warmup_steps", warmup_steps_);
}

// ---- InverseTimeDecay ----

InverseTimeDecay::InverseTimeDecay(double initial_learning_rate, double decay_steps,
                                   double decay_rate, bool staircase, std::string name)
    : DecayRateSchedule(initial_learning_rate, decay_steps, decay_rate, staircase, std::move(name),
                        "InverseTimeDecay") {}

Tensor InverseTimeDecay::decay(const Tensor& initial_learning_rate, const Tensor& decay_rate,
                               const Tensor& p) const {
  return initial_learning_rate / (decay_rate * p + 1.0);
}

// ---- configs ----

SchedulePtr schedule_from_config(const Config& config) {
  KILN_CHECK(config.is_map(), config.where(),
             "a learning-rate schedule is a map {\"class_name\": ..., \"config\": {...}} or "
             "{ClassName: {arguments}}, got ",
             config.to_json());
  const KerasObject object = read_keras_object(config, "a learning-rate schedule");
  return registry().get(object.class_name.as_string(), object.class_name.where())(object.arguments);
}

void register_schedule(const std::string& class_name, ScheduleFactory factory) {
  KILN_CHECK(factory != nullptr, "register_schedule('", class_name, "'): no factory");
  registry().add(class_name, std::move(factory));
}

Config serialize(const LearningRateSchedule& schedule) {
  return Config::map()
      .set("class_name", schedule.class_name())
      .set("config", schedule.get_config());
}

std::vector<std::string> known_schedule_names() {
  return registry().names();
}

}  // namespace kiln::optimizers
