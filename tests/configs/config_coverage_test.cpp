// Every argument of every registered Keras class is honoured: for each class of each registry
// (layers, activations, initializers, regularizers, constraints, losses, metrics, optimizers,
// schedules, callbacks) and
// each key its config writes, a non-default value survives get_config/from_config through JSON
// (what a .keras file or a checkpoint holds), through a run file's YAML in the {Class: {args}}
// form, and a second round trip; or it is refused with an error that names the key (a feature
// kiln does not implement). A value changed on the way, or dropped, fails the test, and so does
// a key this test has no non-default value for: a new class or argument must come with one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kiln/configs/keras_objects.h"
#include "kiln/configs/yaml_config.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/activations/activations.h"
#include "kiln/layers/constraints/constraints.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/core/lambda.h"
#include "kiln/layers/initializers/initializers.h"
#include "kiln/layers/registry.h"
#include "kiln/layers/regularizers/regularizers.h"
#include "kiln/losses/registry.h"
#include "kiln/optimizers/registry.h"
#include "kiln/optimizers/schedules.h"
#include "kiln/training/callbacks/registry.h"
#include "kiln/training/metrics/registry.h"
#include "kiln/training/model/model.h"

namespace kiln::configs {
namespace {

// One registry as the test drives it: its classes, the arguments a class cannot do without,
// and a round trip from {"class_name", "config"} to the serialized object.
struct RegistryUnderTest {
  std::string noun;
  std::vector<std::string> classes;
  std::function<Config(const std::string& class_name)> required;
  std::function<Config(const Config& spec)> round_trip;
};

void PrintTo(const RegistryUnderTest& r, std::ostream* os) {
  *os << r.noun;
}

Config object(const std::string& module, const std::string& class_name, Config config) {
  return Config::map()
      .set("module", module)
      .set("class_name", class_name)
      .set("config", std::move(config))
      .set("registered_name", Config());
}

// Keys whose value is another object or the structure of a model: their own classes are covered
// by their registries, and a changed structure is a different model, checked by the model tests.
// A Sequential's dtype and build_input_shape are written but not read back, by Keras too: its
// layers hold their own policies, and the InputLayer gives the shape.
bool structural(const std::string& class_name, const std::string& key) {
  static const std::vector<std::string> keys{"Bidirectional.layer",
                                             "Bidirectional.backward_layer",
                                             "TimeDistributed.layer",
                                             "Sequential.layers",
                                             "Functional.layers",
                                             "Functional.input_layers",
                                             "Functional.output_layers",
                                             "Model.layers",
                                             "Model.input_layers",
                                             "Model.output_layers",
                                             "lossscaleoptimizer.inner_optimizer",
                                             "Sequential.dtype",
                                             "Sequential.build_input_shape"};
  const std::string both = class_name + "." + key;
  return std::find(keys.begin(), keys.end(), both) != keys.end();
}

// A value of `key` other than `current`, as the class's config writes it; nullopt when the test
// knows none.
std::optional<Config> other_value(const std::string& class_name, const std::string& key,
                                  const Config& current) {
  const auto ends_with = [&](const std::string& suffix) {
    return key.size() >= suffix.size() &&
           key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // Keras objects as their serializers write them.
  if (ends_with("initializer"))
    return object("keras.initializers", "RandomNormal",
                  Config::map().set("mean", 0.5).set("stddev", 0.25).set("seed", 3));
  if (ends_with("regularizer"))
    return object("keras.regularizers", "L1L2", Config::map().set("l1", 0.25).set("l2", 0.5));
  if (ends_with("constraint"))
    return object("keras.constraints", "MaxNorm",
                  Config::map().set("max_value", 3.0).set("axis", int64_t{0}));
  if (key == "dtype" && current.is_map())
    return object("keras", "DTypePolicy", Config::map().set("name", "float64"));
  if (key == "function" && current.is_map()) {  // a Lambda's registered function
    Config other = current;
    other.set("config", current["config"].as_string() == "coverage_twice" ? "coverage_identity"
                                                                          : "coverage_twice");
    return other;
  }
  // A callback's monitor mode, VarianceScaling's fan mode, or RandomFlip's axes.
  if (key == "mode" && current.is_string()) {
    const std::string& mode = current.as_string();
    if (mode.starts_with("horizontal") || mode == "vertical")
      return Config(mode == "horizontal" ? "vertical" : "horizontal");
    if (mode == "auto" || mode == "min" || mode == "max")
      return Config(mode == "min" ? "max" : "min");
    return Config(mode == "fan_out" ? "fan_in" : "fan_out");
  }
  // Save and update frequencies: "epoch" or a number of batches.
  if ((key == "save_freq" || key == "update_freq") && current.is_string())
    return Config(int64_t{5});
  // Strings with a known alternative.
  static const std::map<std::string, std::vector<std::string>> strings{
      {"activation", {"tanh", "relu"}},
      {"recurrent_activation", {"tanh", "sigmoid"}},
      {"padding", {"same", "valid"}},
      {"merge_mode", {"sum", "concat"}},
      {"interpolation", {"bilinear", "nearest"}},
      {"reduction", {"sum", "sum_over_batch_size"}},
      {"name", {"renamed", "renamed_again"}},
      {"function", {"coverage_twice", "coverage_identity"}},
      {"dtype", {"float64", "float32"}},
      {"fn", {"mean_absolute_error", "mean_squared_error"}},
      {"monitor", {"loss", "val_loss"}},
      {"separator", {";", ","}},
      {"filepath", {"other.weights.h5", "best.weights.h5"}},
      {"filename", {"other.csv", "log.csv"}},
      {"backup_dir", {"other_backup", "backup"}},
      {"log_dir", {"other_logs", "logs"}},
      {"embeddings_metadata", {"metadata.tsv", "labels.tsv"}},
      {"distribution", {"uniform", "truncated_normal"}},
      {"data_format", {"channels_first", "channels_last"}},
      {"fill_mode", {"reflect", "constant"}},
      {"curve", {"PR", "ROC"}},
      {"summation_method", {"majoring", "interpolation"}},
      {"output_mode", {"one_hot", "count"}},
      {"vocabulary_dtype", {"int32", "int64"}},
      {"oov_method", {"hash", "floormod"}},
      {"standardize", {"lower", "strip_punctuation"}},
      {"split", {"character", "whitespace"}},
      {"encoding", {"latin-1", "utf-8"}},
      {"oov_token", {"?", "[UNK]"}},
  };
  // StringLookup's mask token is a string (IntegerLookup's, below, an integer).
  if (class_name == "StringLookup" && key == "mask_token") return Config("");
  if (current.is_string() || current.is_null()) {
    const auto it = strings.find(key);
    if (it != strings.end())
      return Config(current.is_string() && current.as_string() == it->second[0] ? it->second[1]
                                                                                : it->second[0]);
  }
  if (current.is_bool()) return Config(!current.as_bool());
  if (current.is_int()) return Config(current.as_int() + 1);
  // Fractions move to 0.75 or 0.625, exact in float32 (an optimizer keeps its rate as one).
  if (current.is_number()) {
    const double v = current.as_double();
    return Config(v >= 0 && v <= 1 ? (v == 0.75 ? 0.625 : 0.75) : v * 2);
  }
  // Lists change element by element (dims grow by one, unknown dims stay unknown).
  if (current.is_list() && !current.as_list().empty()) {
    Config out = Config::list();
    for (const Config& item : current.as_list()) {
      if (item.is_null()) {
        out.push_back(item);
        continue;
      }
      std::optional<Config> changed = other_value(class_name, key, item);
      if (!changed) return std::nullopt;
      out.push_back(*changed);
    }
    return out;
  }
  // Arguments that are off (null) by default.
  static const std::map<std::string, Config> off{
      {"seed", Config(int64_t{7})},
      {"clipnorm", Config(0.5)},
      {"clipvalue", Config(0.5)},
      {"global_clipnorm", Config(0.5)},
      {"weight_decay", Config(0.004)},
      {"noise_shape", Config(std::vector<int64_t>{1, 4})},
      {"output_shape", Config(std::vector<int64_t>{5})},
      {"sliding_window", Config(int64_t{2})},
      {"lora_rank", Config(int64_t{2})},
      {"quantization_config", Config::map().set("mode", "int8")},
      {"alpha", Config(0.25)},
      {"label_smoothing", Config(0.25)},
      {"decay_steps", Config(int64_t{100})},
      {"warmup_target", Config(0.5)},
      {"num_labels", Config(int64_t{2})},
      {"label_weights", Config(std::vector<double>{0.5, 1.0})},
      {"attention_axes", Config(std::vector<int64_t>{1})},
      {"class_id", Config(int64_t{1})},
      {"thresholds", Config(0.25)},
      {"top_k", Config(int64_t{2})},
      {"ignore_class", Config(int64_t{0})},
      {"ema_overwrite_frequency", Config(int64_t{5})},
      {"max_value", Config(2.5)},
      {"baseline", Config(0.5)},
      {"initial_value_threshold", Config(0.5)},
      {"gradient_accumulation_steps", Config(int64_t{2})},
      {"loss_scale_factor", Config(128.0)},
      {"mean", Config(2.0)},  // Normalization's, refused alone: it needs variance too
      {"variance", Config(4.0)},
      {"width_factor", Config(0.25)},
      {"num_bins", Config(int64_t{4})},  // Discretization's, for adapt
      {"mask_token", Config(int64_t{0})},
      {"max_tokens", Config(int64_t{10})},
      {"idf_weights", Config(std::vector<double>{1.0, 2.0})},  // tf_idf: refused
      {"salt", Config(std::vector<int64_t>{3, 5})},            // Keras writes an int salt as two
      {"ngrams", Config(int64_t{2})},
      {"output_sequence_length", Config(int64_t{4})},
      {"vocabulary", Config(std::vector<std::string>{"a", "b"})},
      {"vocabulary_size", Config(int64_t{5})},
      {"mask_value", Config("masked")},  // Hashing's  // RandomZoom's: null is the height's zoom
  };
  if (current.is_null()) {
    const auto it = off.find(key);
    if (it != off.end()) return it->second;
  }
  if (key == "arguments" && current.is_map() && current.size() == 0)
    return Config::map().set("scale", 2.0);  // a Lambda's keyword arguments
  return std::nullopt;
}

// Numbers compare as numbers (YAML writes 2.0 as 2), everything else exactly.
bool same(const Config& a, const Config& b) {
  if (a.is_number() && b.is_number())
    return std::abs(a.as_double() - b.as_double()) <=
           1e-12 * std::max(1.0, std::abs(a.as_double()));
  if (a.is_map() && b.is_map()) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a.as_map())
      if (!b.contains(k) || !same(v, b[k])) return false;
    return true;
  }
  if (a.is_list() && b.is_list()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same(a.at(i), b.at(i))) return false;
    return true;
  }
  return a == b;
}

Config spec_of(const std::string& class_name, Config config) {
  return Config::map().set("class_name", class_name).set("config", std::move(config));
}

// The three ways a config reaches a class: JSON (files), YAML in the run-file form, and the
// config a first round trip wrote, read again.
std::vector<std::pair<std::string, Config>> ways(const RegistryUnderTest& r, const Config& spec) {
  const std::string& class_name = spec["class_name"].as_string();
  const Config yaml =
      parse_yaml(to_yaml(Config::map().set(class_name, spec["config"])), "coverage.yaml");
  return {{"json", Config::from_json(spec.to_json())},
          {"yaml", *keras_object(yaml, r.noun)},
          {"twice", r.round_trip(Config::from_json(r.round_trip(spec).to_json()))}};
}

class ConfigCoverage : public ::testing::TestWithParam<RegistryUnderTest> {};

TEST_P(ConfigCoverage, EveryKeyOfEveryClassSurvivesOrIsRefusedByName) {
  const RegistryUnderTest& r = GetParam();
  ASSERT_FALSE(r.classes.empty());
  int survived = 0;
  std::vector<std::string> refused;
  for (const std::string& class_name : r.classes) {
    SCOPED_TRACE(r.noun + " " + class_name);
    const Config base = spec_of(class_name, r.required(class_name));
    Config defaults;
    try {
      defaults = r.round_trip(base)["config"];
    } catch (const Error& e) {
      ADD_FAILURE() << "cannot make a " << class_name << " from " << base.to_json() << ": "
                    << e.what() << " (give its required arguments in this test)";
      continue;
    }
    if (!defaults.is_map()) continue;  // a metric function's config is its name
    for (const auto& [key, current] : defaults.as_map()) {
      if (structural(class_name, key)) continue;
      SCOPED_TRACE(key);
      const std::optional<Config> value = other_value(class_name, key, current);
      if (!value) {
        ADD_FAILURE() << "no non-default value for " << class_name << "." << key << " (now "
                      << current.to_json() << "): add one to other_value()";
        continue;
      }
      Config config = base["config"];
      config.set(key, *value);
      const Config spec = spec_of(class_name, config);
      try {
        for (const auto& [way, given] : ways(r, spec)) {
          const Config written = r.round_trip(given)["config"];
          EXPECT_TRUE(written.contains(key) && same(written[key], *value))
              << way << ": " << class_name << "." << key << " = " << value->to_json()
              << " came back as " << (written.contains(key) ? written[key].to_json() : "absent");
        }
        ++survived;
      } catch (const Error& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr(key))
            << class_name << "." << key << " = " << value->to_json()
            << " was refused without naming the key";
        refused.push_back(class_name + "." + key);
      }
    }
  }
  EXPECT_GT(survived, 0);
  // What kiln does not implement, for the reader of the log.
  std::string list;
  for (const std::string& r_key : refused) list += (list.empty() ? "" : ", ") + r_key;
  std::cout << r.noun << ": " << survived << " arguments survive, " << refused.size()
            << " refused by name" << (list.empty() ? "" : ": " + list) << "\n";
}

Config serialized_layer(const Config& spec) {
  return layers::serialize_layer(*layers::deserialize_layer(spec));
}

Config layer_requirements(const std::string& class_name) {
  static const std::map<std::string, std::string> required{
      {"Activation", R"({"activation": "relu"})"},
      {"Bidirectional", R"({"layer": {"class_name": "LSTM", "config": {"units": 2}}})"},
      {"CategoryEncoding", R"({"num_tokens": 4})"},
      {"CenterCrop", R"({"height": 2, "width": 3})"},
      {"Conv1D", R"({"filters": 2, "kernel_size": 3})"},
      {"Conv2D", R"({"filters": 2, "kernel_size": 3})"},
      {"Dense", R"({"units": 2})"},
      {"Discretization", R"({"bin_boundaries": [0.0, 1.0]})"},
      {"DepthwiseConv2D", R"({"kernel_size": 3})"},
      {"Dropout", R"({"rate": 0.5})"},
      {"Embedding", R"({"input_dim": 5, "output_dim": 3})"},
      {"GRU", R"({"units": 2})"},
      {"LSTM", R"({"units": 2})"},
      {"SimpleRNN", R"({"units": 2})"},
      {"Hashing", R"({"num_bins": 4})"},
      {"InputLayer", R"({"batch_shape": [null, 4]})"},
      {"IntegerLookup", R"({"vocabulary": [5, 7, 9]})"},
      {"Lambda", R"({"function": "coverage_identity"})"},
      {"MultiHeadAttention", R"({"num_heads": 2, "key_dim": 3})"},
      {"Permute", R"({"dims": [2, 1]})"},
      {"RandomBrightness", R"({"factor": 0.2})"},
      {"RandomContrast", R"({"factor": 0.2})"},
      {"RandomCrop", R"({"height": 2, "width": 3})"},
      {"RandomRotation", R"({"factor": 0.2})"},
      {"RandomTranslation", R"({"height_factor": 0.2, "width_factor": 0.1})"},
      {"RandomZoom", R"({"height_factor": 0.2})"},
      {"RepeatVector", R"({"n": 3})"},
      {"Reshape", R"({"target_shape": [2, 2]})"},
      {"Resizing", R"({"height": 2, "width": 3})"},
      {"Rescaling", R"({"scale": 0.5})"},
      {"TimeDistributed", R"({"layer": {"class_name": "Dense", "config": {"units": 2}}})"},
  };
  if (class_name == "Sequential" || class_name == "Model" || class_name == "Functional") {
    layers::reset_names();
    const layers::KerasTensor in = layers::Input({4});
    Model model({in}, {layers::Dense(2)(in)}, "coverage_model");
    Config config = layers::serialize_layer(model)["config"];
    if (class_name == "Sequential")
      config = Config::from_json(
          R"({"layers": [{"class_name": "InputLayer", "config": {"batch_shape": [null, 4]}},
                         {"class_name": "Dense", "config": {"units": 2}}]})");
    return config;
  }
  const auto it = required.find(class_name);
  return it == required.end() ? Config::map() : Config::from_json(it->second);
}

Config optimizer_requirements(const std::string& class_name) {
  if (class_name != "lossscaleoptimizer") return Config::map();
  return Config::from_json(R"({"inner_optimizer": {"class_name": "SGD", "config": {}}})");
}

Config schedule_requirements(const std::string& class_name) {
  static const std::map<std::string, std::string> required{
      {"ExponentialDecay",
       R"({"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5})"},
      {"InverseTimeDecay",
       R"({"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5})"},
      {"CosineDecay", R"({"initial_learning_rate": 0.1, "decay_steps": 10})"},
      {"PiecewiseConstantDecay", R"({"boundaries": [10, 20], "values": [0.1, 0.01, 0.001]})"},
  };
  const auto it = required.find(class_name);
  return it == required.end() ? Config::map() : Config::from_json(it->second);
}

Config callback_requirements(const std::string& class_name) {
  static const std::map<std::string, std::string> required{
      {"ModelCheckpoint", R"({"filepath": "best.weights.h5"})"},
      {"BackupAndRestore", R"({"backup_dir": "backup"})"},
      {"CSVLogger", R"({"filename": "log.csv"})"},
  };
  const auto it = required.find(class_name);
  return it == required.end() ? Config::map() : Config::from_json(it->second);
}

std::vector<RegistryUnderTest> registries() {
  if (!layers::is_registered_lambda("coverage_identity")) {
    layers::register_lambda("coverage_identity", [](const Tensor& x) { return x; });
    layers::register_lambda("coverage_twice", [](const Tensor& x) { return x * 2.0; });
  }
  const auto nothing = [](const std::string&) { return Config::map(); };
  return {
      {"an activation", activations::known_names(),
       [](const std::string& name) { return activations::default_arguments(name); },
       [](const Config& spec) {
         const Config written = activations::ActivationArg::from_config(spec).to_config();
         return written.is_string() ? spec_of(written.as_string(), Config()) : written;
       }},
      {"a layer", layers::known_layers(), layer_requirements, serialized_layer},
      {"an initializer", initializers::known_names(), nothing,
       [](const Config& spec) {
         return initializers::serialize(*initializers::from_config(spec));
       }},
      {"a regularizer", regularizers::known_names(), nothing,
       [](const Config& spec) {
         return regularizers::serialize(*regularizers::from_config(spec));
       }},
      {"a constraint", constraints::known_names(), nothing,
       [](const Config& spec) { return constraints::serialize(*constraints::from_config(spec)); }},
      {"a loss", losses::known_names(), nothing,
       [](const Config& spec) { return losses::serialize(*losses::from_config(spec)); }},
      {"a metric", metrics::known_names(), nothing,
       [](const Config& spec) { return metrics::serialize(*metrics::from_config(spec)); }},
      {"an optimizer", optimizers::known_names(), optimizer_requirements,
       [](const Config& spec) { return optimizers::serialize(*optimizers::from_config(spec)); }},
      {"a callback", callbacks::known_names(), callback_requirements,
       [](const Config& spec) {
         return callbacks::serialize(spec["class_name"].as_string(), *callbacks::from_config(spec));
       }},
      {"a schedule", optimizers::known_schedule_names(), schedule_requirements,
       [](const Config& spec) {
         return optimizers::serialize(*optimizers::schedule_from_config(spec));
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(Registries, ConfigCoverage, ::testing::ValuesIn(registries()),
                         [](const ::testing::TestParamInfo<RegistryUnderTest>& param) {
                           // "a layer" -> "layer"
                           const std::string& noun = param.param.noun;
                           return noun.substr(noun.find(' ') + 1);
                         });

}  // namespace
}  // namespace kiln::configs
