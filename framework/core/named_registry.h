#pragma once
// One registry of named things: layer classes, losses, optimizers, metrics, activations, Lambda
// functions, initializers and regularizers are each a NamedRegistry. Names compare as written or
// folded (lower case, snake_case), several names may reach one value (Keras's aliases), a name is
// registered once, lookups and registrations are locked, and every registry words its errors
// alike:
//   {where}unknown loss 'mse2'; did you mean 'mse'?
//   {where}unknown layer class 'Dence'; did you mean 'Dense'?; custom layers register with ...
//   loss 'mse' is already registered
#include <functional>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"

namespace kiln {

// How a registry compares names: the key a name is stored and looked up under.
using NameFold = std::function<std::string(std::string_view)>;

template <typename Value>
class NamedRegistry {
 public:
  // Whether a name shows in names() and suggestions (an internal name is found but not offered).
  enum class Listed { yes, no };

  // `noun` names what the names name in messages ("loss", "layer class"); `fold` null compares
  // names as written; `how_to_register` ends an unknown name's error.
  explicit NamedRegistry(std::string noun, NameFold fold = nullptr,
                         std::string how_to_register = "")
      : noun_(std::move(noun)),
        fold_(std::move(fold)),
        how_to_register_(std::move(how_to_register)) {}

  // Movable before it is shared: built by a function, then kept in a function-local static.
  NamedRegistry(NamedRegistry&& other) noexcept
      : noun_(std::move(other.noun_)),
        fold_(std::move(other.fold_)),
        how_to_register_(std::move(other.how_to_register_)),
        entries_(std::move(other.entries_)) {}
  NamedRegistry& operator=(NamedRegistry&&) = delete;

  // Adds `value` under `name` and each alias; a name already taken (after folding) is refused.
  void add(std::string_view name, Value value, std::initializer_list<std::string_view> aliases = {},
           Listed listed = Listed::yes) {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> keys{key(name)};
    for (std::string_view alias : aliases) keys.push_back(key(alias));
    for (const std::string& k : keys)
      KILN_CHECK(!entries_.contains(k), noun_, " '", k == keys[0] ? std::string(name) : k,
                 "' is already registered");
    for (const std::string& k : keys) entries_.emplace(k, Entry{value, listed == Listed::yes});
  }

  std::optional<Value> find(std::string_view name) const {
    const std::lock_guard lock(mutex_);
    const auto it = entries_.find(key(name));
    if (it == entries_.end()) return std::nullopt;
    return it->second.value;
  }

  // find(), or an error naming `where` (a config's file:line), the name and the closest names.
  Value get(std::string_view name, std::string_view where = "") const {
    if (std::optional<Value> value = find(name)) return *std::move(value);
    throw Error(unknown(name, where));
  }

  bool contains(std::string_view name) const { return find(name).has_value(); }

  // The listed names as stored (folded), sorted.
  std::vector<std::string> names() const {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_)
      if (entry.listed) out.push_back(name);
    return out;
  }

  // The listed names whose value passes `keep`.
  std::vector<std::string> names_if(const std::function<bool(const Value&)>& keep) const {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_)
      if (entry.listed && keep(entry.value)) out.push_back(name);
    return out;
  }

  // The unknown-name error's message, with suggestions from `candidates` (default: names()).
  std::string unknown(std::string_view name, std::string_view where,
                      std::optional<std::vector<std::string>> candidates = std::nullopt) const {
    // Distances from the folded name: "GlorotUnifrom" is near "glorot_uniform".
    const std::string hint = did_you_mean(key(name), candidates ? *candidates : names());
    std::string message = detail::concat(where, "unknown ", noun_, " '", name, "'");
    if (!hint.empty()) message += "; " + hint;
    if (!how_to_register_.empty()) message += "; " + how_to_register_;
    return message;
  }

 private:
  struct Entry {
    Value value;
    bool listed;
  };
  std::string key(std::string_view name) const { return fold_ ? fold_(name) : std::string(name); }

  std::string noun_;
  NameFold fold_;
  std::string how_to_register_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace kiln
