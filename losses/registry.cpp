#include "kiln/losses/registry.h"

#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/losses/losses.h"

namespace kiln::losses {
namespace {

struct Registry {
  std::mutex mutex;
  // Every accepted name, aliases included, to the factory of its class.
  std::map<std::string, LossFactory, std::less<>> factories;

  Registry() {
    add({"MeanSquaredError", "mean_squared_error", "mse", "MSE"}, MeanSquaredError::from_config);
    add({"MeanAbsoluteError", "mean_absolute_error", "mae", "MAE"}, MeanAbsoluteError::from_config);
    add({"MeanAbsolutePercentageError", "mean_absolute_percentage_error", "mape", "MAPE"},
        MeanAbsolutePercentageError::from_config);
    add({"Huber", "huber"}, Huber::from_config);
    add({"LogCosh", "log_cosh", "logcosh"}, LogCosh::from_config);
    add({"BinaryCrossentropy", "binary_crossentropy", "bce", "BCE"},
        BinaryCrossentropy::from_config);
    add({"CategoricalCrossentropy", "categorical_crossentropy"},
        CategoricalCrossentropy::from_config);
    add({"SparseCategoricalCrossentropy", "sparse_categorical_crossentropy"},
        SparseCategoricalCrossentropy::from_config);
    add({"Hinge", "hinge"}, Hinge::from_config);
    add({"KLDivergence", "kl_divergence", "kld", "KLD"}, KLDivergence::from_config);
    add({"CosineSimilarity", "cosine_similarity"}, CosineSimilarity::from_config);
  }

  void add(std::initializer_list<const char*> names, const LossFactory& factory) {
    for (const char* name : names) factories.emplace(name, factory);
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, factory] : factories) out.push_back(name);
    return out;
  }

  // Adds a custom name; built-in and earlier registered names cannot be replaced.
  void add_custom(const std::string& name, LossFactory factory, std::string_view what) {
    KILN_CHECK(!name.empty(), what, ": the name is empty");
    KILN_CHECK(factory != nullptr, what, "('", name, "'): no function");
    const std::lock_guard lock(mutex);
    KILN_CHECK(factories.emplace(name, std::move(factory)).second, what, ": loss '", name,
               "' is already registered (built-in and registered names cannot be replaced)");
  }

  LossFactory find(std::string_view name, std::string_view where) {
    const std::lock_guard lock(mutex);
    if (const auto it = factories.find(name); it != factories.end()) return it->second;
    const std::string hint = did_you_mean(name, names());
    throw Error(detail::concat(where, "unknown loss '", name, "'", hint.empty() ? "" : "; ", hint));
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

// The loss `name`'s factory builds from `config`; a custom factory must return one.
LossPtr build(std::string_view name, const Config& config, std::string_view where) {
  LossPtr loss = registry().find(name, where)(config);
  KILN_CHECK(loss != nullptr, where, "the factory of loss '", name, "' returned no loss");
  return loss;
}

}  // namespace

LossPtr get(std::string_view name) {
  return build(name, Config::map(), "");
}

LossPtr from_config(const Config& config) {
  if (config.is_string()) return build(config.as_string(), Config::map(), config.where());
  KILN_CHECK(config.is_map(), config.where(),
             "a loss config must be a name or a map with \"class_name\" and \"config\", got ",
             Config::type_name(config.type()));
  config.check_keys({"class_name", "config", "module", "registered_name"}, "a loss config");
  const Config& class_name = config["class_name"];
  const Config* arguments = config.find("config");
  return build(class_name.as_string(),
               arguments == nullptr || arguments->is_null() ? Config::map() : *arguments,
               class_name.where());
}

Config serialize(const Loss& loss) {
  return Config::map().set("class_name", loss.class_name()).set("config", loss.get_config());
}

void register_loss(const std::string& name, LossFunction per_sample) {
  KILN_CHECK(per_sample != nullptr, "register_loss('", name, "'): no function");
  registry().add_custom(
      name,
      [name, fn = std::move(per_sample)](const Config& config) -> LossPtr {
        config.check_keys({"name", "reduction"}, name);
        return std::make_shared<LossFunctionWrapper>(
            fn, name, config.get_string("name", name),
            reduction_from_config(config, Reduction::sum_over_batch_size));
      },
      "register_loss");
}

void register_loss_class(const std::string& class_name, LossFactory factory) {
  registry().add_custom(class_name, std::move(factory), "register_loss_class");
}

std::vector<std::string> known_names() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  return r.names();
}

}  // namespace kiln::losses
