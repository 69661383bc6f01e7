// Learning-rate schedules against Keras (scripts/golden/generate_optimizer_goldens.py): values,
// traced values, configs, and errors that name what is wrong.
#include <gtest/gtest.h>

#include "kiln/engine/function/function.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/optimizers/schedules.h"
#include "tests/optimizers/goldens.h"
#include "tests/test_support/expect_error.h"

namespace kiln::optimizers::testing {
namespace {

using kiln::testing::expect_error;

constexpr double kTolerance = 1e-6;  // relative; Keras computes in float32 too

std::vector<double> eager_rates(const LearningRateSchedule& schedule,
                                const std::vector<double>& steps) {
  std::vector<double> out;
  for (const double step : steps) out.push_back(schedule.at(static_cast<int64_t>(step)));
  return out;
}

TEST(Schedules, MatchKeras) {
  ASSERT_EQ(kScheduleGoldens.size(), 7u);
  for (const ScheduleGolden& g : kScheduleGoldens) {
    const SchedulePtr schedule = schedule_from_config(Config::from_json(g.keras_config));
    expect_close(eager_rates(*schedule, g.steps), g.rates, kTolerance, g.name);
  }
}

TEST(Schedules, TracedMatchesEagerWithOneTrace) {
  for (const ScheduleGolden& g : kScheduleGoldens) {
    const SchedulePtr schedule = schedule_from_config(Config::from_json(g.keras_config));
    auto rate = kiln::function([&](const Tensor& step) { return (*schedule)(step); });
    std::vector<double> traced;
    for (const double step : g.steps) traced.push_back(rate(scalar(step)).item<double>());
    expect_close(traced, eager_rates(*schedule, g.steps), kTolerance, g.name);
    EXPECT_EQ(rate.stats().traces, 1) << g.name;
  }
}

TEST(Schedules, ConfigRoundTrip) {
  for (const ScheduleGolden& g : kScheduleGoldens) {
    const Config keras = without_keras_module_keys(Config::from_json(g.keras_config));
    const SchedulePtr schedule = schedule_from_config(keras);
    EXPECT_EQ(serialize(*schedule), keras) << g.name << ": " << serialize(*schedule).to_json();
    EXPECT_EQ(serialize(*schedule_from_config(serialize(*schedule))), keras) << g.name;
  }
}

TEST(Schedules, ConstructorsKeepKerasDefaults) {
  EXPECT_EQ(serialize(CosineDecay(0.1, 100)),
            Config::from_json(R"({"class_name": "CosineDecay", "config": {
                "initial_learning_rate": 0.1, "decay_steps": 100, "alpha": 0.0,
                "name": "CosineDecay", "warmup_target": null, "warmup_steps": 0}})"));
  EXPECT_EQ(PiecewiseConstantDecay({2}, {1.0, 0.5}).get_config()["name"].as_string(),
            "PiecewiseConstant");
}

// A schedule class written in C++ registers by name and is then read like the built-in ones,
// in Keras's form and a run file's.
class ReciprocalDecay : public LearningRateSchedule {
 public:
  explicit ReciprocalDecay(double every) : every_(every) {}
  Tensor operator()(const Tensor& step) const override { return 1.0 / (step / every_ + 1.0); }
  std::string class_name() const override { return "ReciprocalDecay"; }
  Config get_config() const override { return Config::map().set("every", every_); }

 private:
  double every_;
};

TEST(Schedules, CustomClassesRegisterByName) {
  register_schedule("ReciprocalDecay", [](const Config& c) -> SchedulePtr {
    c.check_keys({"every"}, "schedule ReciprocalDecay");
    return std::make_shared<ReciprocalDecay>(c.get_double("every", 10));
  });
  const SchedulePtr run_form =
      schedule_from_config(Config::from_json(R"({"ReciprocalDecay": {"every": 3}})"));
  EXPECT_DOUBLE_EQ(run_form->at(9), 0.25);
  EXPECT_EQ(serialize(*schedule_from_config(serialize(*run_form))), serialize(*run_form));
  expect_error([] { register_schedule("CosineDecay", nullptr); }, "no factory");
  expect_error(
      [] {
        register_schedule("ReciprocalDecay", [](const Config&) -> SchedulePtr { return nullptr; });
      },
      "learning-rate schedule 'ReciprocalDecay' is already registered");
}

TEST(Schedules, ErrorsNameTheProblem) {
  expect_error(
      [] {
        schedule_from_config(
            Config::from_json(R"({"class_name": "ExponentialDecy", "config": {}})"));
      },
      "unknown learning-rate schedule 'ExponentialDecy'; did you mean 'ExponentialDecay'?");
  expect_error(
      [] {
        schedule_from_config(Config::from_json(R"({"class_name": "InverseTimeDecay", "config":
            {"initial_learning_rate": 0.1, "decay_step": 2, "decay_rate": 0.5}})"));
      },
      "unknown key 'decay_step' for schedule InverseTimeDecay (did you mean 'decay_steps'?)");
  expect_error([] { ExponentialDecay(0.1, 0, 0.5); },
               "ExponentialDecay: decay_steps must be > 0, got 0");
  expect_error(
      [] {
        PiecewiseConstantDecay({1, 2}, {0.1, 0.01});
      },
      "needs one value more than boundaries");
  expect_error(
      [] {
        PiecewiseConstantDecay({5, 2}, {0.1, 0.01, 0.001});
      },
      "boundaries must be increasing, got [5.0, 2.0]");
}

}  // namespace
}  // namespace kiln::optimizers::testing
