// Loss configs: every loss round-trips through serialize / JSON / from_config with Keras's keys,
// Keras's serialized form loads, and bad configs are errors that say what to fix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/losses/losses.h"
#include "kiln/losses/registry.h"

namespace kiln::losses {
namespace {

using ::testing::HasSubstr;

// Every built-in loss, each with arguments other than its defaults.
std::vector<LossPtr> losses_with_arguments() {
  return {
      std::make_shared<MeanSquaredError>(
          LossOptions{.reduction = Reduction::sum, .name = "mse_sum"}),
      std::make_shared<MeanAbsoluteError>(
          LossOptions{.reduction = Reduction::none, .name = "mae_none"}),
      std::make_shared<MeanAbsolutePercentageError>(
          LossOptions{.reduction = Reduction::mean, .name = "mape_mean"}),
      std::make_shared<Huber>(HuberOptions{
          .delta = 0.25, .reduction = Reduction::mean_with_sample_weight, .name = "huber_quarter"}),
      std::make_shared<LogCosh>(LossOptions{.reduction = Reduction::sum, .name = "log_cosh_sum"}),
      std::make_shared<BinaryCrossentropy>(CrossentropyOptions{.from_logits = true,
                                                               .label_smoothing = 0.1,
                                                               .axis = 0,
                                                               .reduction = Reduction::sum,
                                                               .name = "bce_logits"}),
      std::make_shared<CategoricalCrossentropy>(CrossentropyOptions{.from_logits = true,
                                                                    .label_smoothing = 0.2,
                                                                    .axis = 1,
                                                                    .reduction = Reduction::none,
                                                                    .name = "cce_logits"}),
      std::make_shared<SparseCategoricalCrossentropy>(
          SparseCategoricalCrossentropyOptions{.from_logits = true,
                                               .ignore_class = 255,
                                               .reduction = Reduction::sum,
                                               .name = "scce_255"}),
      std::make_shared<SparseCategoricalCrossentropy>(),
      std::make_shared<Hinge>(LossOptions{.reduction = Reduction::mean, .name = "hinge_mean"}),
      std::make_shared<KLDivergence>(LossOptions{.reduction = Reduction::sum, .name = "kld_sum"}),
      std::make_shared<CosineSimilarity>(
          CosineSimilarityOptions{.axis = 0, .reduction = Reduction::none, .name = "cosine_rows"}),
  };
}

TEST(LossConfig, EveryLossRoundTripsThroughJson) {
  for (const LossPtr& loss : losses_with_arguments()) {
    const std::string json = serialize(*loss).to_json();
    const LossPtr back = from_config(Config::from_json(json));
    EXPECT_EQ(back->class_name(), loss->class_name()) << json;
    EXPECT_EQ(back->name(), loss->name()) << json;
    EXPECT_EQ(back->reduction(), loss->reduction()) << json;
    EXPECT_EQ(back->get_config(), loss->get_config()) << json;
    EXPECT_EQ(serialize(*back).to_json(), json);
  }
}

TEST(LossConfig, GetConfigWritesKerasKeys) {
  EXPECT_EQ(
      CategoricalCrossentropy({.from_logits = true, .label_smoothing = 0.5}).get_config().to_json(),
      R"({"name": "categorical_crossentropy", "reduction": "sum_over_batch_size", )"
      R"("from_logits": true, "label_smoothing": 0.5, "axis": -1})");
  EXPECT_EQ(SparseCategoricalCrossentropy().get_config().to_json(),
            R"({"name": "sparse_categorical_crossentropy", "reduction": "sum_over_batch_size", )"
            R"("from_logits": false, "ignore_class": null})");
  EXPECT_EQ(Huber().get_config().to_json(),
            R"({"name": "huber_loss", "reduction": "sum_over_batch_size", "delta": 1.0})");
  EXPECT_EQ(serialize(KLDivergence()).to_json(),
            R"({"class_name": "KLDivergence", "config": {"name": "kl_divergence", )"
            R"("reduction": "sum_over_batch_size"}})");
}

TEST(LossConfig, ReadsKerasSerializedForm) {
  // What keras.losses.serialize(keras.losses.CategoricalCrossentropy(from_logits=True)) writes.
  const LossPtr loss = from_config(Config::from_json(
      R"({"module": "keras.losses", "class_name": "CategoricalCrossentropy", "config": )"
      R"({"name": "categorical_crossentropy", "reduction": "sum_over_batch_size", )"
      R"("from_logits": true, "label_smoothing": 0.0, "axis": -1}, "registered_name": null})"));
  const auto& cce = dynamic_cast<const CategoricalCrossentropy&>(*loss);
  EXPECT_TRUE(cce.from_logits());
  EXPECT_EQ(cce.axis(), -1);
}

TEST(LossConfig, MissingKeysTakeKerasDefaults) {
  const LossPtr huber = from_config(Config::from_json(R"({"class_name": "Huber"})"));
  EXPECT_EQ(huber->name(), "huber_loss");
  EXPECT_EQ(dynamic_cast<const Huber&>(*huber).delta(), 1.0);
  // Keras writes reduction=None as null.
  const LossPtr none =
      from_config(Config::from_json(R"({"class_name": "mse", "config": {"reduction": null}})"));
  EXPECT_EQ(none->reduction(), Reduction::none);
  EXPECT_EQ(from_config(Config("kld"))->class_name(), "KLDivergence");
}

TEST(LossConfig, UnknownKeysAndValuesAreErrorsWithSuggestions) {
  try {
    from_config(Config::from_json(
        R"({"class_name": "CategoricalCrossentropy", "config": {"from_logit": true}})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown key 'from_logit' for CategoricalCrossentropy"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'from_logits'?"));
  }
  try {
    from_config(Config::from_json(R"({"class_name": "Huber", "conifg": {}})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown key 'conifg' for a loss config"));
  }
  try {
    from_config(Config::from_json(
        R"({"class_name": "Hinge", "config": {"reduction": "sum_over_bach_size"}})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown loss reduction 'sum_over_bach_size'"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'sum_over_batch_size'?"));
  }
  try {
    from_config(Config::from_json(R"({"class_name": "CategoricalCrossEntropy"})"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown loss 'CategoricalCrossEntropy'"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'CategoricalCrossentropy'"));
  }
}

TEST(LossConfig, ReductionNamesRoundTrip) {
  for (const Reduction r : {Reduction::sum_over_batch_size, Reduction::sum, Reduction::mean,
                            Reduction::none, Reduction::mean_with_sample_weight})
    EXPECT_EQ(parse_reduction(reduction_name(r)), r);
}

}  // namespace
}  // namespace kiln::losses
