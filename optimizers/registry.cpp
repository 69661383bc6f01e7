#include "kiln/optimizers/registry.h"

#include <cctype>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/optimizers/adagrad.h"
#include "kiln/optimizers/adam.h"
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
    return built;
  }();
  return r;
}

// `where` locates the name in a config ("run.yaml:3:14: optimizer.class_name: ").
OptimizerFactory find_factory(std::string_view name, const std::string& where) {
  return registry().get(name, where);
}

std::optional<double> optional_number(const Config& config, std::string_view key) {
  const Config* value = config.find(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  return value->as_double();
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
  const std::string what = "optimizer " + std::string(class_name);
  std::vector<std::string> keys{"name",
                                "learning_rate",
                                "weight_decay",
                                "clipnorm",
                                "global_clipnorm",
                                "clipvalue",
                                "use_ema",
                                "ema_momentum",
                                "ema_overwrite_frequency",
                                "loss_scale_factor",
                                "gradient_accumulation_steps"};
  keys.insert(keys.end(), own_keys.begin(), own_keys.end());
  config.check_keys(keys, what);
  // Every Keras config carries these; ema_momentum and ema_overwrite_frequency act only with
  // use_ema, so any value of theirs is harmless.
  if (const Config* ema = config.find("use_ema"))
    KILN_CHECK(ema->is_null() || !ema->as_bool(), ema->where(), what,
               ": use_ema (weight averaging) is not supported");
  for (const std::string_view key : {"loss_scale_factor", "gradient_accumulation_steps"}) {
    const Config* value = config.find(key);
    KILN_CHECK(value == nullptr || value->is_null(), value->where(), what, ": ", key,
               " is not supported (only null)");
  }

  OptimizerOptions options;
  options.name = config.get_string("name", "");
  const Config* rate = config.find("learning_rate");
  if (rate == nullptr || rate->is_null())
    options.learning_rate = default_learning_rate;
  else if (rate->is_map())
    options.schedule = schedule_from_config(*rate);
  else
    options.learning_rate = rate->as_double();
  options.weight_decay = optional_number(config, "weight_decay");
  options.clipnorm = optional_number(config, "clipnorm");
  options.clipvalue = optional_number(config, "clipvalue");
  options.global_clipnorm = optional_number(config, "global_clipnorm");
  return options;
}

}  // namespace kiln::optimizers
