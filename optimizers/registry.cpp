#include "kiln/optimizers/registry.h"

#include <cctype>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/optimizers/adagrad.h"
#include "kiln/optimizers/adam.h"
#include "kiln/optimizers/loss_scale_optimizer.h"
#include "kiln/optimizers/nadam.h"
#include "kiln/optimizers/rmsprop.h"
#include "kiln/optimizers/sgd.h"

namespace kiln::optimizers {
namespace {

std::string lower_case(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Keyed by the lower-case class name, which is also Keras's string identifier.
NamedRegistry<OptimizerFactory>& registry() {
  static NamedRegistry<OptimizerFactory> r = [] {
    NamedRegistry<OptimizerFactory> built("optimizer", lower_case);
    built.add("sgd", SGD::from_config);
    built.add("adam", Adam::from_config);
    built.add("adamw", AdamW::from_config);
    built.add("rmsprop", RMSprop::from_config);
    built.add("adagrad", Adagrad::from_config);
    built.add("nadam", Nadam::from_config);
    built.add("lossscaleoptimizer", LossScaleOptimizer::from_config);
    return built;
  }();
  return r;
}

// `where` locates the name in a config ("run.yaml:3:14: optimizer.class_name: ").
OptimizerFactory find_factory(std::string_view name, const std::string& where) {
  return registry().get(name, where);
}

}  // namespace

OptimizerPtr get(std::string_view name) {
  return find_factory(name, "")(Config::map());
}

OptimizerPtr from_config(const Config& config) {
  if (config.is_string()) return find_factory(config.as_string(), config.where())(Config::map());
  KILN_CHECK(config.is_map(), config.where(),
             "an optimizer is a name or a map {\"class_name\": ..., \"config\": {...}}, got ",
             config.to_json());
  config.check_keys({"class_name", "config", "module", "registered_name"}, "an optimizer");
  const Config& class_name = config["class_name"];
  const Config* inner = config.find("config");
  return find_factory(class_name.as_string(), class_name.where())(
      inner == nullptr || inner->is_null() ? Config::map() : *inner);
}

Config serialize(const Optimizer& optimizer) {
  return Config::map()
      .set("class_name", optimizer.class_name())
      .set("config", optimizer.get_config());
}

void register_optimizer(const std::string& class_name, OptimizerFactory factory) {
  KILN_CHECK(factory != nullptr, "register_optimizer('", class_name, "'): no factory");
  registry().add(class_name, std::move(factory));
}

std::vector<std::string> known_names() {
  return registry().names();
}

OptimizerOptions options_from_config(const Config& config, std::string_view class_name,
                                     const std::vector<std::string>& own_keys,
                                     double default_learning_rate) {
  OptimizerOptions defaults;
  defaults.learning_rate = default_learning_rate;
  return read_fields(config, optimizer_fields(), "optimizer " + std::string(class_name), defaults,
                     own_keys);
}

}  // namespace kiln::optimizers
