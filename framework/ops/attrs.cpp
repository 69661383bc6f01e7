#include "kiln/framework/ops/attrs.h"

#include <functional>
#include <sstream>

#include "kiln/framework/core/error.h"

namespace kiln {

Attrs& Attrs::set(std::string_view key, AttrValue value) {
  for (auto& [k, v] : items_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  items_.emplace_back(key, std::move(value));
  return *this;
}

const AttrValue* Attrs::find(std::string_view key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

template <typename T>
const T& Attrs::get(std::string_view key) const {
  const AttrValue* v = find(key);
  KILN_CHECK(v != nullptr, "missing op attribute '", key, "'");
  const T* typed = std::get_if<T>(v);
  KILN_CHECK(typed != nullptr, "op attribute '", key, "' has the wrong type");
  return *typed;
}

template const int64_t& Attrs::get<int64_t>(std::string_view) const;
template const double& Attrs::get<double>(std::string_view) const;
template const bool& Attrs::get<bool>(std::string_view) const;
template const DType& Attrs::get<DType>(std::string_view) const;
template const std::vector<int64_t>& Attrs::get<std::vector<int64_t>>(std::string_view) const;

size_t Attrs::hash() const {
  size_t h = 0;
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (const auto& [k, v] : items_) {
    mix(std::hash<std::string_view>{}(k));
    mix(v.index());
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
            for (int64_t e : x) mix(std::hash<int64_t>{}(e));
          } else if constexpr (std::is_same_v<X, DType>) {
            mix(static_cast<size_t>(x));
          } else {
            mix(std::hash<X>{}(x));
          }
        },
        v);
  }
  return h;
}

std::string Attrs::to_string() const {
  std::ostringstream out;
  bool first = true;
  for (const auto& [k, v] : items_) {
    if (!first) out << ", ";
    first = false;
    out << k << '=';
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
            out << '[';
            for (size_t i = 0; i < x.size(); ++i) out << (i ? ", " : "") << x[i];
            out << ']';
          } else if constexpr (std::is_same_v<X, bool>) {
            out << (x ? "true" : "false");
          } else {
            out << x;
          }
        },
        v);
  }
  return out.str();
}

}  // namespace kiln
