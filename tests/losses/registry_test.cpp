// Losses by name: every Keras alias, did-you-mean for unknown names, and custom losses (a lambda
// or a Loss subclass) registered once and then usable by name through get and from_config.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "kiln/framework/core/config.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/functional.h"
#include "kiln/losses/losses.h"
#include "kiln/losses/registry.h"

namespace kiln::losses {
namespace {

using ::testing::HasSubstr;

TEST(LossRegistry, GetAcceptsEveryKerasName) {
  const std::map<std::string, std::string> class_of{
      {"mse", "MeanSquaredError"},
      {"MSE", "MeanSquaredError"},
      {"mean_squared_error", "MeanSquaredError"},
      {"MeanSquaredError", "MeanSquaredError"},
      {"mae", "MeanAbsoluteError"},
      {"MAE", "MeanAbsoluteError"},
      {"mean_absolute_error", "MeanAbsoluteError"},
      {"MeanAbsoluteError", "MeanAbsoluteError"},
      {"mape", "MeanAbsolutePercentageError"},
      {"MAPE", "MeanAbsolutePercentageError"},
      {"mean_absolute_percentage_error", "MeanAbsolutePercentageError"},
      {"MeanAbsolutePercentageError", "MeanAbsolutePercentageError"},
      {"huber", "Huber"},
      {"Huber", "Huber"},
      {"log_cosh", "LogCosh"},
      {"logcosh", "LogCosh"},
      {"LogCosh", "LogCosh"},
      {"binary_crossentropy", "BinaryCrossentropy"},
      {"bce", "BinaryCrossentropy"},
      {"BCE", "BinaryCrossentropy"},
      {"BinaryCrossentropy", "BinaryCrossentropy"},
      {"categorical_crossentropy", "CategoricalCrossentropy"},
      {"CategoricalCrossentropy", "CategoricalCrossentropy"},
      {"sparse_categorical_crossentropy", "SparseCategoricalCrossentropy"},
      {"SparseCategoricalCrossentropy", "SparseCategoricalCrossentropy"},
      {"hinge", "Hinge"},
      {"Hinge", "Hinge"},
      {"kld", "KLDivergence"},
      {"KLD", "KLDivergence"},
      {"kl_divergence", "KLDivergence"},
      {"KLDivergence", "KLDivergence"},
      {"cosine_similarity", "CosineSimilarity"},
      {"CosineSimilarity", "CosineSimilarity"},
  };
  const auto names = known_names();
  for (const auto& [name, class_name] : class_of) {
    const LossPtr loss = get(name);
    EXPECT_EQ(loss->class_name(), class_name) << name;
    EXPECT_EQ(loss->reduction(), Reduction::sum_over_batch_size) << name;
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  EXPECT_EQ(get("huber")->name(), "huber_loss");  // Keras's default names
  EXPECT_EQ(get("mse")->name(), "mean_squared_error");
}

TEST(LossRegistry, UnknownNameSuggestsTheClosest) {
  try {
    get("mean_squared_eror");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("unknown loss 'mean_squared_eror'; did you mean 'mean_squared_error'"));
  }
  try {
    get("sparse_categorical_crossentrpy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'sparse_categorical_crossentropy'"));
  }
}

TEST(LossRegistry, CustomLambdaWorksByNameWithTheStandardReduction) {
  register_loss("doubled_mse", [](const Tensor& y_true, const Tensor& y_pred) {
    return mean_squared_error(y_true, y_pred) * 2.0;
  });
  const Tensor y_true = tensor({0, 1, 2, 3}, {2, 2});
  const Tensor y_pred = tensor({1, 1, 2, 1}, {2, 2});
  const Tensor weights = tensor({1, 3});
  const LossPtr loss = get("doubled_mse");
  EXPECT_EQ(loss->name(), "doubled_mse");
  EXPECT_EQ(loss->class_name(), "doubled_mse");
  // Per sample: 2 * mean([1, 0]) = 1 and 2 * mean([0, 4]) = 4; weighted (1, 12), over 2 samples.
  EXPECT_FLOAT_EQ((*loss)(y_true, y_pred, weights).item<float>(), 6.5f);
  // The registered name works in configs too, with a reduction of its own.
  const LossPtr summed = from_config(
      Config::from_json(R"({"class_name": "doubled_mse", "config": {"reduction": "sum"}})"));
  EXPECT_FLOAT_EQ((*summed)(y_true, y_pred).item<float>(), 5.0f);
  EXPECT_EQ(from_config(serialize(*summed))->reduction(), Reduction::sum);
  EXPECT_THROW(
      from_config(Config::from_json(R"({"class_name": "doubled_mse", "config": {"delta": 1.0}})")),
      Error);
}

// A C++ subclass with an argument of its own.
class ScaledMae final : public Loss {
 public:
  explicit ScaledMae(double scale, std::string name = "scaled_mae")
      : Loss(std::move(name)), scale_(scale) {}
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override {
    return mean_absolute_error(y_true, y_pred) * scale_;
  }
  std::string class_name() const override { return "ScaledMae"; }
  Config get_config() const override { return Loss::get_config().set("scale", scale_); }

 private:
  double scale_;
};

TEST(LossRegistry, CustomClassWorksByNameAndConfig) {
  register_loss_class("ScaledMae", [](const Config& config) -> LossPtr {
    config.check_keys({"name", "reduction", "scale"}, "ScaledMae");
    return std::make_shared<ScaledMae>(config.get_double("scale", 1.0),
                                       config.get_string("name", "scaled_mae"));
  });
  const Tensor y_true = tensor({0, 0}, {2, 1});
  const Tensor y_pred = tensor({1, 3}, {2, 1});
  EXPECT_FLOAT_EQ((*get("ScaledMae"))(y_true, y_pred).item<float>(), 2.0f);
  const LossPtr loss = from_config(serialize(ScaledMae(10.0)));
  EXPECT_FLOAT_EQ((*loss)(y_true, y_pred).item<float>(), 20.0f);
}

TEST(LossRegistry, BuiltInAndRegisteredNamesCannotBeReplaced) {
  const LossFunction fn = mean_absolute_error;
  EXPECT_THROW(register_loss("mse", fn), Error);
  EXPECT_THROW(register_loss("CategoricalCrossentropy", fn), Error);
  register_loss("once_only", fn);
  try {
    register_loss("once_only", fn);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("loss 'once_only' is already registered"));
  }
  EXPECT_THROW(register_loss("empty_function", nullptr), Error);
}

}  // namespace
}  // namespace kiln::losses
