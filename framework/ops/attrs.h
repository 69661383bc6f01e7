#pragma once
// Static attributes of an op instance (axes, alpha, strides...). They are part of a graph node's
// identity: printed in graph dumps, hashed and compared by common-subexpression elimination.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "kiln/framework/core/dtype.h"
#include "kiln/framework/ops/attr_keys.h"

namespace kiln {

using AttrValue = std::variant<int64_t, double, bool, DType, std::vector<int64_t>>;

class Attrs {
 public:
  Attrs() = default;
  // Attrs{{attr::axis, int64_t{1}}, {attr::keepdims, true}}
  Attrs(std::initializer_list<std::pair<std::string_view, AttrValue>> items) : items_(items) {}

  Attrs& set(std::string_view key, AttrValue value);
  bool has(std::string_view key) const { return find(key) != nullptr; }
  int64_t get_int(std::string_view key) const { return get<int64_t>(key); }
  double get_float(std::string_view key) const { return get<double>(key); }
  bool get_bool(std::string_view key) const { return get<bool>(key); }
  DType get_dtype(std::string_view key) const { return get<DType>(key); }
  const std::vector<int64_t>& get_ints(std::string_view key) const {
    return get<std::vector<int64_t>>(key);
  }

  size_t hash() const;
  bool operator==(const Attrs& other) const { return items_ == other.items_; }
  std::string to_string() const;  // "axis=1, keepdims=true"
  bool empty() const { return items_.empty(); }
  // The value of `key` as T (code generated from a table of typed attributes reads them so).
  template <typename T>
  const T& get(std::string_view key) const;
  // The value of a named attribute (attr_keys.h), in its type.
  template <typename T>
  const T& get(AttrKey<T> key) const {
    return get<T>(key.name);
  }

 private:
  const AttrValue* find(std::string_view key) const;

  // Keys are string literals from op code, so string_view never dangles.
  std::vector<std::pair<std::string_view, AttrValue>> items_;
};

}  // namespace kiln
