#pragma once
// What the built-in optimizers share beyond Optimizer: a struct of their own hyperparameters
// (AdamOptions) next to the shared OptimizerOptions, and Keras's config that holds both. Each
// optimizer lists the Keras key of every hyperparameter once; reading and writing configs follow
// from that list.
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/optimizers/optimizer.h"
#include "kiln/optimizers/registry.h"

namespace kiln::optimizers {

// One of an optimizer's own hyperparameters: its Keras config key and the field of `Own` it fills.
template <class Own>
struct OwnKey {
  std::string_view key;
  std::variant<double Own::*, bool Own::*> field;
};

// `Self` declares `static constexpr std::string_view kClassName` (Keras's class name) and
// `static constexpr std::array<OwnKey<Own>, N> kOwnKeys` (in Keras's config order), and may
// redeclare kDefaultLearningRate.
template <class Self, class Own>
class BuiltinOptimizer : public Optimizer {
 public:
  // Keras's default rate; SGD redeclares its own.
  static constexpr double kDefaultLearningRate = 0.001;

  // Keras's config keys: the shared ones plus Self::kOwnKeys.
  static OptimizerPtr from_config(const Config& config) {
    OptimizerOptions options = shared_options_from_config(config, Self::kClassName);
    return std::make_shared<Self>(std::move(options), own_from_config(config));
  }

  std::string class_name() const override { return std::string(Self::kClassName); }
  Config get_config() const override {
    Config config = Optimizer::get_config();
    for (const OwnKey<Own>& own_key : Self::kOwnKeys)
      std::visit([&](auto field) { config.set(own_key.key, own_.*field); }, own_key.field);
    return config;
  }

 protected:
  BuiltinOptimizer(OptimizerOptions options, Own own)
      : Optimizer(std::move(options)), own_(std::move(own)) {}

  const Own& own() const { return own_; }

  // The two halves of from_config, for a subclass that reads Self's config as another class
  // (AdamW).
  static OptimizerOptions shared_options_from_config(const Config& config,
                                                     std::string_view class_name) {
    std::vector<std::string> own_keys;
    for (const OwnKey<Own>& own_key : Self::kOwnKeys) own_keys.emplace_back(own_key.key);
    return options_from_config(config, class_name, own_keys, Self::kDefaultLearningRate);
  }
  // Keys that are absent or null keep Own's defaults, which are Keras's.
  static Own own_from_config(const Config& config) {
    Own own;
    for (const OwnKey<Own>& own_key : Self::kOwnKeys) {
      std::visit(
          [&](auto field) {
            auto& value = own.*field;
            if constexpr (std::is_same_v<std::remove_cvref_t<decltype(value)>, bool>)
              value = config.get_bool(own_key.key, value);
            else
              value = config.get_double(own_key.key, value);
          },
          own_key.field);
    }
    return own;
  }

 private:
  Own own_;
};

}  // namespace kiln::optimizers
