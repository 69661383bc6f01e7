#include "kiln/optimizers/schedules.h"

#include <algorithm>
#include <functional>
#include <numbers>

#include "kiln/framework/core/config_fields.h"
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

const FieldTable<DecayRateOptions>& decay_rate_fields() {
  static const FieldTable<DecayRateOptions> table{
      required(field("initial_learning_rate", &DecayRateOptions::initial_learning_rate)),
      required(field("decay_steps", &DecayRateOptions::decay_steps)),
      required(field("decay_rate", &DecayRateOptions::decay_rate)),
      field("staircase", &DecayRateOptions::staircase), field("name", &DecayRateOptions::name)};
  return table;
}

const FieldTable<PiecewiseConstantOptions>& piecewise_constant_fields() {
  static const FieldTable<PiecewiseConstantOptions> table{
      required(field("boundaries", &PiecewiseConstantOptions::boundaries)),
      required(field("values", &PiecewiseConstantOptions::values)),
      field("name", &PiecewiseConstantOptions::name)};
  return table;
}

const FieldTable<CosineDecayOptions>& cosine_decay_fields() {
  static const FieldTable<CosineDecayOptions> table{
      required(field("initial_learning_rate", &CosineDecayOptions::initial_learning_rate)),
      required(field("decay_steps", &CosineDecayOptions::decay_steps)),
      field("alpha", &CosineDecayOptions::alpha),
      field("name", &CosineDecayOptions::name),
      field("warmup_target", &CosineDecayOptions::warmup_target),
      field("warmup_steps", &CosineDecayOptions::warmup_steps)};
  return table;
}

// Adds `class_name`, made from its config read by its field table.
template <class Schedule, typename Options>
void add_schedule(NamedRegistry<ScheduleFactory>& registry, const std::string& class_name,
                  const FieldTable<Options>& table) {
  registry.add(class_name, [class_name, &table](const Config& c) -> SchedulePtr {
    return std::make_shared<Schedule>(read_fields(c, table, "schedule " + class_name));
  });
}

NamedRegistry<ScheduleFactory>& registry() {
  static NamedRegistry<ScheduleFactory> r = [] {
    NamedRegistry<ScheduleFactory> built("learning-rate schedule");
    add_schedule<ExponentialDecay>(built, "ExponentialDecay", decay_rate_fields());
    add_schedule<PiecewiseConstantDecay>(built, "PiecewiseConstantDecay",
                                         piecewise_constant_fields());
    add_schedule<CosineDecay>(built, "CosineDecay", cosine_decay_fields());
    add_schedule<InverseTimeDecay>(built, "InverseTimeDecay", decay_rate_fields());
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

DecayRateSchedule::DecayRateSchedule(DecayRateOptions options, std::string_view schedule)
    : options_(std::move(options)) {
  if (options_.name.empty()) options_.name = schedule;
  check_learning_rate(options_.initial_learning_rate,
                      detail::concat(schedule, ": initial_learning_rate"));
  check_decay_steps(options_.decay_steps, schedule);
  check_non_negative(options_.decay_rate, detail::concat(schedule, ": decay_rate"));
}

Tensor DecayRateSchedule::operator()(const Tensor& step) const {
  const Tensor s = as_float32(step);
  Tensor p = s / options_.decay_steps;
  if (options_.staircase) p = floor_nonnegative(p);
  return decay(constant_like(options_.initial_learning_rate, s),
               constant_like(options_.decay_rate, s), p);
}

Config DecayRateSchedule::get_config() const {
  return write_fields(options_, decay_rate_fields());
}

// ---- ExponentialDecay ----

ExponentialDecay::ExponentialDecay(DecayRateOptions options)
    : DecayRateSchedule(std::move(options), "ExponentialDecay") {}

ExponentialDecay::ExponentialDecay(double initial_learning_rate, double decay_steps,
                                   double decay_rate, bool staircase, std::string name)
    : ExponentialDecay(DecayRateOptions{initial_learning_rate, decay_steps, decay_rate, staircase,
                                        std::move(name)}) {}

Tensor ExponentialDecay::decay(const Tensor& initial_learning_rate, const Tensor& decay_rate,
                               const Tensor& p) const {
  return initial_learning_rate * ops::pow(decay_rate, p);
}

// ---- PiecewiseConstantDecay ----

PiecewiseConstantDecay::PiecewiseConstantDecay(std::vector<double> boundaries,
                                               std::vector<double> values, std::string name)
    : PiecewiseConstantDecay(
          PiecewiseConstantOptions{std::move(boundaries), std::move(values), std::move(name)}) {}

PiecewiseConstantDecay::PiecewiseConstantDecay(PiecewiseConstantOptions options)
    : options_(std::move(options)) {
  const std::vector<double>& boundaries = options_.boundaries;
  const std::vector<double>& values = options_.values;
  KILN_CHECK(!boundaries.empty() && boundaries.size() + 1 == values.size(),
             "PiecewiseConstantDecay: needs one value more than boundaries and at least one "
             "boundary, got ",
             boundaries.size(), " boundaries and ", values.size(), " values");
  for (const double b : boundaries) check_finite(b, "PiecewiseConstantDecay: a boundary");
  KILN_CHECK(std::is_sorted(boundaries.begin(), boundaries.end()),
             "PiecewiseConstantDecay: boundaries must be increasing, got ",
             Config(boundaries).to_json());
  for (const double v : values) check_learning_rate(v, "PiecewiseConstantDecay: a value");
}

Tensor PiecewiseConstantDecay::operator()(const Tensor& step) const {
  const std::vector<double>& boundaries = options_.boundaries;
  const std::vector<double>& values = options_.values;
  const Tensor s = as_float32(step);
  // The sum of value_i times "step lies in interval i": exactly one indicator is 1.
  const auto in = [&](const Tensor& condition, double value) {
    return ops::cast(condition, DType::f32) * value;
  };
  Tensor result = in(ops::less_equal(s, constant_like(boundaries.front(), s)), values.front());
  result = result + in(ops::greater(s, boundaries.back()), values.back());
  for (size_t i = 1; i < boundaries.size(); ++i) {
    const Tensor inside = ops::logical_and(ops::greater(s, boundaries[i - 1]),
                                           ops::less_equal(s, constant_like(boundaries[i], s)));
    result = result + in(inside, values[i]);
  }
  return result;
}

Config PiecewiseConstantDecay::get_config() const {
  return write_fields(options_, piecewise_constant_fields());
}

// ---- CosineDecay ----

CosineDecay::CosineDecay(double initial_learning_rate, double decay_steps, double alpha,
                         std::string name, std::optional<double> warmup_target, double warmup_steps)
    : CosineDecay(CosineDecayOptions{initial_learning_rate, decay_steps, alpha, std::move(name),
                                     warmup_target, warmup_steps}) {}

CosineDecay::CosineDecay(CosineDecayOptions options) : options_(std::move(options)) {
  check_learning_rate(options_.initial_learning_rate, "CosineDecay: initial_learning_rate");
  check_decay_steps(options_.decay_steps, "CosineDecay");
  check_finite(options_.alpha, "CosineDecay: alpha");
  if (options_.warmup_target)
    check_learning_rate(*options_.warmup_target, "CosineDecay: warmup_target");
  check_non_negative(options_.warmup_steps, "CosineDecay: warmup_steps");
}

Tensor CosineDecay::operator()(const Tensor& step) const {
  const Tensor s = as_float32(step);
  const CosineDecayOptions& o = options_;
  const Tensor decay_steps = constant_like(o.decay_steps, s);
  // The cosine from `from` at `decay_step` of decay_steps.
  const auto decay = [&](const Tensor& decay_step, const Tensor& from) {
    const Tensor fraction = decay_step / decay_steps;
    const Tensor cosine = (ops::cos(constant_like(std::numbers::pi, s) * fraction) + 1.0) * 0.5;
    return from * (cosine * (1.0 - o.alpha) + o.alpha);
  };
  const Tensor initial = constant_like(o.initial_learning_rate, s);
  if (!o.warmup_target) return decay(ops::minimum(s, decay_steps), initial);

  const Tensor target = constant_like(*o.warmup_target, s);
  const Tensor warmup_steps = constant_like(o.warmup_steps, s);
  const Tensor clamped = ops::minimum(s, decay_steps + warmup_steps);
  const Tensor warmup = (target - initial) * (clamped / warmup_steps) + initial;
  return ops::where(ops::less(clamped, warmup_steps), warmup,
                    decay(clamped - warmup_steps, target));
}

Config CosineDecay::get_config() const {
  return write_fields(options_, cosine_decay_fields());
}

// ---- InverseTimeDecay ----

InverseTimeDecay::InverseTimeDecay(DecayRateOptions options)
    : DecayRateSchedule(std::move(options), "InverseTimeDecay") {}

InverseTimeDecay::InverseTimeDecay(double initial_learning_rate, double decay_steps,
                                   double decay_rate, bool staircase, std::string name)
    : InverseTimeDecay(DecayRateOptions{initial_learning_rate, decay_steps, decay_rate, staircase,
                                        std::move(name)}) {}

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
