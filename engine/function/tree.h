#pragma once
// How arguments and results of traced functions are taken apart: a value is a tree whose leaves
// are tensors (traced) and static values (part of the cache key). Supported out of the box:
// Tensor, arithmetic types, enums, std::string, and std::vector / std::array / std::pair /
// std::tuple / std::optional / std::map<std::string, T> of those. A struct joins by declaring,
// next to it, `auto kiln_fields(MyStruct& s) { return std::tie(s.a, s.b); }` (and a const
// overload), found by argument-dependent lookup.
#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln {

namespace tree_detail {

template <typename T>
struct is_vector : std::false_type {};
template <typename E, typename A>
struct is_vector<std::vector<E, A>> : std::true_type {};
template <typename T>
struct is_std_array : std::false_type {};
template <typename E, size_t N>
struct is_std_array<std::array<E, N>> : std::true_type {};
template <typename T>
struct is_tuple_like : std::false_type {};
template <typename... E>
struct is_tuple_like<std::tuple<E...>> : std::true_type {};
template <typename A, typename B>
struct is_tuple_like<std::pair<A, B>> : std::true_type {};
template <typename T>
struct is_optional : std::false_type {};
template <typename E>
struct is_optional<std::optional<E>> : std::true_type {};
template <typename T>
struct is_string_map : std::false_type {};
template <typename E, typename C, typename A>
struct is_string_map<std::map<std::string, E, C, A>> : std::true_type {};

template <typename T>
concept has_fields = requires(T& t) {
  kiln_fields(t);
};

template <typename T>
concept static_leaf =
    std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>;

}  // namespace tree_detail

// Structure tokens a visitor receives for containers, so two differently shaped trees never
// produce the same key.
enum class TreeKind : int64_t { list = 1, tuple, optional_empty, optional_set, map, record };

// Calls, in a fixed order: v.tensor(t) for tensor leaves, v.leaf(s) for static leaves,
// v.open(kind, size) / v.close() around containers, v.enter(index) / v.enter(name) / v.leave()
// around each child. T may be const (reading) or not (replacing tensors in place).
template <typename T, typename V>
void visit_tree(T& value, V& v) {
  using U = std::remove_const_t<T>;
  if constexpr (std::is_same_v<U, Tensor>) {
    v.tensor(value);
  } else if constexpr (tree_detail::static_leaf<U>) {
    v.leaf(value);
  } else if constexpr (tree_detail::is_vector<U>::value || tree_detail::is_std_array<U>::value) {
    v.open(TreeKind::list, value.size());
    for (size_t i = 0; i < value.size(); ++i) {
      v.enter(i);
      visit_tree(value[i], v);
      v.leave();
    }
    v.close();
  } else if constexpr (tree_detail::is_tuple_like<U>::value) {
    v.open(TreeKind::tuple, std::tuple_size_v<U>);
    [&]<size_t... I>(std::index_sequence<I...>) {
      ((v.enter(I), visit_tree(std::get<I>(value), v), v.leave()), ...);
    }
    (std::make_index_sequence<std::tuple_size_v<U>>());
    v.close();
  } else if constexpr (tree_detail::is_optional<U>::value) {
    v.open(value ? TreeKind::optional_set : TreeKind::optional_empty, value ? 1 : 0);
    if (value) visit_tree(*value, v);
    v.close();
  } else if constexpr (tree_detail::is_string_map<U>::value) {
    v.open(TreeKind::map, value.size());
    for (auto& [key, child] : value) {
      v.leaf(key);
      v.enter(std::string_view(key));
      visit_tree(child, v);
      v.leave();
    }
    v.close();
  } else if constexpr (tree_detail::has_fields<U>) {
    auto fields = kiln_fields(value);
    v.open(TreeKind::record, std::tuple_size_v<decltype(fields)>);
    [&]<size_t... I>(std::index_sequence<I...>) {
      ((v.enter(I), visit_tree(std::get<I>(fields), v), v.leave()), ...);
    }
    (std::make_index_sequence<std::tuple_size_v<decltype(fields)>>());
    v.close();
  } else {
    static_assert(sizeof(U) == 0,
                  "kiln::function: unsupported argument or result type; use tensors, numbers, "
                  "strings, enums, standard containers of them, or declare kiln_fields()");
  }
}

}  // namespace kiln
