#pragma once
// One field table per configurable options struct: each key a config may hold and the member it
// fills. Reading a config, writing one and refusing unknown keys come from the one list, and the
// defaults live only in the struct's member initializers, never again in a reader.
//
//   const FieldTable<EarlyStoppingOptions> fields{
//       field("monitor", &EarlyStoppingOptions::monitor),
//       field("patience", &EarlyStoppingOptions::patience), ...};
//   const EarlyStoppingOptions o = read_fields(config, fields, "EarlyStopping");
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/error.h"

namespace kiln {

template <typename Options>
struct ConfigField {
  std::string key;
  // The key's value into the options; `what` names the class in errors.
  std::function<void(const Config& value, Options& into, std::string_view what)> read;
  // The value written back; empty for keys that are read and checked but never written.
  std::function<Config(const Options& from)> write;
  // Whether null is a value `read` takes (Keras's None for a loss's reduction) rather than
  // "keep the default".
  bool reads_null = false;
  // Whether a config must hold the key (a required argument: Dense's units, a schedule's
  // decay_steps); its absence is an error naming it.
  bool required = false;
  // Whether `write` writes the key for these options; empty: always (Keras writes some keys only
  // when set, an AUC's thresholds).
  std::function<bool(const Options&)> written_if = nullptr;
};

template <typename Options>
using FieldTable = std::vector<ConfigField<Options>>;

namespace detail {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <typename T>
T config_as(const Config& value) {
  if constexpr (IsOptional<T>::value) {
    return config_as<typename T::value_type>(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    return value.as_bool();
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(value.as_int());
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value.as_double());
  } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    return value.as_int_list();
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    return value.as_double_list();
  } else {
    static_assert(std::is_same_v<T, std::string>, "a field of a type config_fields.h can't read");
    return value.as_string();
  }
}

template <typename T>
Config to_config(const T& value) {
  if constexpr (IsOptional<T>::value) {
    return value ? to_config(*value) : Config();
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return Config(static_cast<int64_t>(value));
  } else {
    return Config(value);
  }
}

}  // namespace detail

// A key read into and written from `member`: numbers, bools, strings, int and float lists,
// optionals of those (null is "none").
template <typename Options, typename T>
ConfigField<Options> field(std::string key, T Options::*member) {
  return {std::move(key),
          [member](const Config& value, Options& into, std::string_view) {
            into.*member = detail::config_as<T>(value);
          },
          [member](const Options& from) { return detail::to_config(from.*member); }};
}

// A key with its own codec: `read(value)` gives the member, `write(member)` its config value.
template <typename Options, typename T, typename Read, typename Write>
ConfigField<Options> field(std::string key, T Options::*member, Read read, Write write) {
  return {std::move(key),
          [member, read](const Config& value, Options& into, std::string_view) {
            into.*member = read(value);
          },
          [member, write](const Options& from) { return write(from.*member); }};
}

// A key Keras writes whose only supported value is `value` (a data_format kiln implements, a
// feature it does not, left false): any other value is refused naming the key and, when given,
// `why` (a reason, or what to do instead); written as `value`, as Keras writes it.
template <typename Options>
ConfigField<Options> fixed_field(std::string key, Config value, std::string why = {}) {
  return {key,
          [key, value, why](const Config& given, Options&, std::string_view what) {
            KILN_CHECK(given == value, given.where(), what, ": '", key, "' = ", given.to_json(),
                       " is not supported by kiln; only ", value.to_json(), " is",
                       why.empty() ? "" : " (" + why + ")");
          },
          [value](const Options&) { return value; }};
}

// A key Keras writes for something kiln does not implement (a constraint, an activity
// regularizer): absent or null only, since any value would change the layer; written as null.
template <typename Options>
ConfigField<Options> null_field(std::string key) {
  return {key,
          [key](const Config& given, Options&, std::string_view what) {
            throw Error(given.where() + std::string(what) + ": '" + key +
                        "' is not supported by kiln (got " + given.to_json() + "); leave it null");
          },
          [](const Options&) { return Config(); }};
}

// `f`, given null as a value of its own instead of keeping the default for it.
template <typename Options>
ConfigField<Options> nullable(ConfigField<Options> f) {
  f.reads_null = true;
  return f;
}

// `f`, read as before but never written: a key Keras writes only when set (lora_rank).
template <typename Options>
ConfigField<Options> read_only(ConfigField<Options> f) {
  f.write = nullptr;
  return f;
}

// `f`, which a config must hold (a required argument): no default, and null is refused.
template <typename Options>
ConfigField<Options> required(ConfigField<Options> f) {
  f.required = true;
  return f;
}

// `f`, written only where `when(options)` holds.
template <typename Options, typename When>
ConfigField<Options> written_if(ConfigField<Options> f, When when) {
  f.written_if = std::move(when);
  return f;
}

// A key accepted and ignored: one that only matters together with another key kiln refuses
// unless null (lora_alpha without lora_rank), or a hint that does not change what is computed
// (a recurrent layer's unroll). Written as `written` when given, else never.
template <typename Options>
ConfigField<Options> ignored_field(std::string key, std::optional<Config> written = std::nullopt) {
  ConfigField<Options> f{std::move(key), [](const Config&, Options&, std::string_view) {}, nullptr};
  if (written) f.write = [value = *written](const Options&) { return value; };
  return f;
}

// A class's arguments as one struct: its options struct with the required (constructor)
// arguments added, `struct DenseArguments : DenseOptions { int64_t units = 0; }`, so one table
// holds every key, each spelled once. The required fields come first (where the constructor
// takes them), then the options' table, lifted to the derived struct.
template <typename Arguments, typename Options>
requires std::derived_from<Arguments, Options> FieldTable<Arguments> with_options(
    FieldTable<Arguments> required_fields, const FieldTable<Options>& options) {
  for (const ConfigField<Options>& f : options) {
    ConfigField<Arguments> lifted{f.key, nullptr, nullptr, f.reads_null, f.required};
    lifted.read = [read = f.read](const Config& value, Arguments& into, std::string_view what) {
      read(value, into, what);
    };
    if (f.write) lifted.write = [write = f.write](const Arguments& from) { return write(from); };
    if (f.written_if)
      lifted.written_if = [when = f.written_if](const Arguments& from) { return when(from); };
    required_fields.push_back(std::move(lifted));
  }
  return required_fields;
}

// The table's keys, then `extra` (arguments outside the options struct, a callback's filepath).
template <typename Options>
std::vector<std::string> field_keys(const FieldTable<Options>& table,
                                    std::vector<std::string> extra = {}) {
  std::vector<std::string> keys;
  for (const ConfigField<Options>& f : table) keys.push_back(f.key);
  keys.insert(keys.end(), extra.begin(), extra.end());
  return keys;
}

// `config`'s values over `defaults`: an absent key keeps its default (a required one is an
// error), and so does a null one unless the field is nullable; a key neither in the table nor in
// `extra` is refused naming `what` (with a suggestion), and a value of the wrong type names its
// file:line.
template <typename Options>
Options read_fields(const Config& config, const FieldTable<Options>& table, std::string_view what,
                    Options defaults = {}, std::vector<std::string> extra = {}) {
  config.check_keys(field_keys(table, std::move(extra)), what);
  for (const ConfigField<Options>& f : table) {
    const Config* value = f.required ? &config[f.key] : config.find(f.key);
    KILN_CHECK(!f.required || !value->is_null(), value->where(), what, ": '", f.key,
               "' is required and cannot be null");
    if (value != nullptr && (f.reads_null || !value->is_null())) f.read(*value, defaults, what);
  }
  return defaults;
}

// Every written field's value, in table order, set into `into` (a map; a base class's config).
template <typename Options>
Config write_fields(const Options& options, const FieldTable<Options>& table,
                    Config into = Config::map()) {
  for (const ConfigField<Options>& f : table)
    if (f.write && (!f.written_if || f.written_if(options))) into.set(f.key, f.write(options));
  return into;
}

}  // namespace kiln
