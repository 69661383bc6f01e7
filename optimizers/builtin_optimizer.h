#pragma once
// What the built-in optimizers share beyond Optimizer: a struct of their own hyperparameters
// (AdamOptions) next to the shared OptimizerOptions, and Keras's config that holds both. Each
// optimizer lists the Keras key of every hyperparameter once, in a field table; reading and
// writing configs follow from that list.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/config_fields.h"
#include "kiln/optimizers/optimizer.h"
#include "kiln/optimizers/registry.h"

namespace kiln::optimizers {

// `Self` declares `static constexpr std::string_view kClassName` (Keras's class name) and
// `static const FieldTable<Own>& fields()` (its own keys, in Keras's config order), and may
// redeclare kDefaultLearningRate.
template <class Self, class Own>
class BuiltinOptimizer : public Optimizer {
 public:
  // Keras's default rate; SGD redeclares its own.
  static constexpr double kDefaultLearningRate = 0.001;

  // Keras's config keys: the shared ones plus Self::fields().
  static OptimizerPtr from_config(const Config& config) {
    OptimizerOptions options = shared_options_from_config(config, Self::kClassName);
    return std::make_shared<Self>(std::move(options), own_from_config(config, Self::kClassName));
  }

  std::string class_name() const override { return std::string(Self::kClassName); }
  Config get_config() const override {
    return write_fields(own_, Self::fields(), Optimizer::get_config());
  }

 protected:
  BuiltinOptimizer(OptimizerOptions options, Own own)
      : Optimizer(std::move(options)), own_(std::move(own)) {}

  const Own& own() const { return own_; }

  // The two halves of from_config, for a subclass that reads Self's config as another class
  // (AdamW).
  static OptimizerOptions shared_options_from_config(const Config& config,
                                                     std::string_view class_name) {
    return options_from_config(config, class_name, field_keys(Self::fields()),
                               Self::kDefaultLearningRate);
  }
  // Keys that are absent or null keep Own's defaults, which are Keras's.
  static Own own_from_config(const Config& config, std::string_view class_name) {
    return read_fields(config, Self::fields(), "optimizer " + std::string(class_name), Own{},
                       field_keys(optimizer_fields()));
  }

 private:
  Own own_;
};

}  // namespace kiln::optimizers
