#pragma once
// One field table per configurable options struct: each key a config may hold and the member it
// fills. Reading a config, writing one and refusing unknown keys come from the one list, and the
// defaults live only in the struct's member initializers, never again in a reader.
//
//   const FieldTable<EarlyStoppingOptions> fields{
//       field("monitor", &EarlyStoppingOptions::monitor),
//       field("patience", &EarlyStoppingOptions::patience), ...};
//   const EarlyStoppingOptions o = read_fields(config, fields, "EarlyStopping");
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/framework/core/config.h"

namespace kiln {

template <typename Options>
struct ConfigField {
  std::string key;
  std::function<void(const Config& value, Options& into)> read;  // the key's value, not null
  std::function<Config(const Options& from)> write;
};

template <typename Options>
using FieldTable = std::vector<ConfigField<Options>>;

namespace detail {

template <typename T>
T config_as(const Config& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value.as_bool();
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(value.as_int());
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value.as_double());
  } else if constexpr (std::is_same_v<T, std::optional<double>>) {
    return value.as_double();
  } else {
    static_assert(std::is_same_v<T, std::string>, "a field of a type config_fields.h can't read");
    return value.as_string();
  }
}

template <typename T>
Config to_config(const T& value) {
  if constexpr (std::is_same_v<T, std::optional<double>>) {
    return value ? Config(*value) : Config();
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return Config(static_cast<int64_t>(value));
  } else {
    return Config(value);
  }
}

}  // namespace detail

// A key read into and written from `member`: numbers, bools, strings, optional numbers (null is
// "none").
template <typename Options, typename T>
ConfigField<Options> field(std::string key, T Options::*member) {
  return {
      std::move(key),
      [member](const Config& value, Options& into) { into.*member = detail::config_as<T>(value); },
      [member](const Options& from) { return detail::to_config(from.*member); }};
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

// `config`'s values over `defaults`: an absent or null key keeps its default, a key neither in
// the table nor in `extra` is refused naming `what` (with a suggestion), and a value of the wrong
// type names its file:line.
template <typename Options>
Options read_fields(const Config& config, const FieldTable<Options>& table, std::string_view what,
                    Options defaults = {}, std::vector<std::string> extra = {}) {
  config.check_keys(field_keys(table, std::move(extra)), what);
  for (const ConfigField<Options>& f : table) {
    const Config* value = config.find(f.key);
    if (value != nullptr && !value->is_null()) f.read(*value, defaults);
  }
  return defaults;
}

// Every field's value, in table order.
template <typename Options>
Config write_fields(const Options& options, const FieldTable<Options>& table) {
  Config out = Config::map();
  for (const ConfigField<Options>& f : table) out.set(f.key, f.write(options));
  return out;
}

}  // namespace kiln
