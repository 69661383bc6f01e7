#include "kiln/losses/registry.h"

#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/losses/loss_fields.h"
#include "kiln/losses/losses.h"

namespace kiln::losses {
namespace {

NamedRegistry<LossFactory>& registry() {
  static NamedRegistry<LossFactory> r = [] {
    NamedRegistry<LossFactory> built("loss");
    built.add("MeanSquaredError", MeanSquaredError::from_config,
              {"mean_squared_error", "mse", "MSE"});
    built.add("MeanAbsoluteError", MeanAbsoluteError::from_config,
              {"mean_absolute_error", "mae", "MAE"});
    built.add("MeanAbsolutePercentageError", MeanAbsolutePercentageError::from_config,
              {"mean_absolute_percentage_error", "mape", "MAPE"});
    built.add("Huber", Huber::from_config, {"huber"});
    built.add("LogCosh", LogCosh::from_config, {"log_cosh", "logcosh"});
    built.add("BinaryCrossentropy", BinaryCrossentropy::from_config,
              {"binary_crossentropy", "bce", "BCE"});
    built.add("CategoricalCrossentropy", CategoricalCrossentropy::from_config,
              {"categorical_crossentropy"});
    built.add("SparseCategoricalCrossentropy", SparseCategoricalCrossentropy::from_config,
              {"sparse_categorical_crossentropy"});
    built.add("Hinge", Hinge::from_config, {"hinge"});
    built.add("KLDivergence", KLDivergence::from_config, {"kl_divergence", "kld", "KLD"});
    built.add("CosineSimilarity", CosineSimilarity::from_config, {"cosine_similarity"});
    return built;
  }();
  return r;
}

// A custom name; built-in and earlier registered names cannot be replaced.
void add_custom(const std::string& name, LossFactory factory, std::string_view what) {
  KILN_CHECK(!name.empty(), what, ": the name is empty");
  KILN_CHECK(factory != nullptr, what, "('", name, "'): no function");
  registry().add(name, std::move(factory));
}

// The loss `name`'s factory builds from `config`; a custom factory must return one.
LossPtr build(std::string_view name, const Config& config, std::string_view where) {
  LossPtr loss = registry().get(name, where)(config);
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
  add_custom(
      name,
      [name, fn = std::move(per_sample)](const Config& config) -> LossPtr {
        return std::make_shared<LossFunctionWrapper>(
            fn, name, read_fields(config, common_loss_fields(), name));
      },
      "register_loss");
}

void register_loss_class(const std::string& class_name, LossFactory factory) {
  add_custom(class_name, std::move(factory), "register_loss_class");
}

std::vector<std::string> known_names() {
  return registry().names();
}

}  // namespace kiln::losses
