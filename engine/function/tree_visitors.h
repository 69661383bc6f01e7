#pragma once
// The visitors kiln::function runs over argument and result trees (see tree.h).
#include <bit>
#include <cstdint>
#include <functional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kiln/engine/function/tree.h"
#include "kiln/framework/core/error.h"

namespace kiln::engine {

// Cache-key tokens for structure and static values, and the tensor leaves in order.
struct KeyVisitor {
  std::vector<int64_t>& key;
  std::vector<Tensor>& tensors;

  void tensor(const Tensor& t) {
    KILN_CHECK(t.defined(), "kiln::function: an argument tensor is undefined");
    key.push_back(0);  // a tensor slot; its meta joins the key separately
    tensors.push_back(t);
  }
  template <typename S>
  void leaf(const S& s) {
    if constexpr (std::is_same_v<S, std::string>) {
      key.push_back(1);
      key.push_back(static_cast<int64_t>(std::hash<std::string>{}(s)));
    } else if constexpr (std::is_floating_point_v<S>) {
      key.push_back(2);
      key.push_back(std::bit_cast<int64_t>(static_cast<double>(s)));
    } else {
      key.push_back(3);
      key.push_back(static_cast<int64_t>(s));
    }
  }
  void open(TreeKind kind, size_t size) {
    key.push_back(static_cast<int64_t>(kind) << 32 | static_cast<int64_t>(size));
  }
  void close() { key.push_back(-1); }
  void enter(size_t) {}
  void enter(std::string_view) {}
  void leave() {}
};

// Where each leaf sits ("x[1].labels") and how static values print: for messages only.
struct DescribeVisitor {
  std::vector<std::string>& tensor_paths;
  std::vector<std::pair<std::string, std::string>>& statics;
  std::vector<std::string> path;

  std::string here() const {
    std::string out;
    for (const std::string& p : path) out += p;
    return out;
  }
  void tensor(const Tensor&) { tensor_paths.push_back(here()); }
  template <typename S>
  void leaf(const S& s) {
    std::ostringstream out;
    if constexpr (std::is_same_v<S, std::string>)
      out << '\'' << s << '\'';
    else if constexpr (std::is_same_v<S, bool>)
      out << (s ? "true" : "false");
    else if constexpr (std::is_enum_v<S>)
      out << static_cast<int64_t>(s);
    else if constexpr (std::is_same_v<S, char> || std::is_same_v<S, signed char> ||
                       std::is_same_v<S, unsigned char>)
      out << static_cast<int>(s);
    else
      out << s;
    statics.emplace_back(here(), out.str());
  }
  void open(TreeKind, size_t) {}
  void close() {}
  void enter(size_t i) { path.push_back(detail::concat('[', i, ']')); }
  void enter(std::string_view name) { path.push_back(detail::concat('.', name)); }
  void leave() { path.pop_back(); }
};

// Overwrites tensor leaves, in visit order, with the given tensors.
struct ReplaceVisitor {
  std::span<const Tensor> replacements;
  size_t next = 0;

  void tensor(Tensor& t) { t = replacements[next++]; }
  template <typename S>
  void leaf(const S&) {}
  void open(TreeKind, size_t) {}
  void close() {}
  void enter(size_t) {}
  void enter(std::string_view) {}
  void leave() {}
};

// Drops tensor leaves (a result template keeps structure and static leaves only).
struct ClearVisitor {
  void tensor(Tensor& t) { t = Tensor(); }
  template <typename S>
  void leaf(const S&) {}
  void open(TreeKind, size_t) {}
  void close() {}
  void enter(size_t) {}
  void enter(std::string_view) {}
  void leave() {}
};

// Collects tensor leaves only (results: their static leaves stay as traced).
struct CollectVisitor {
  std::vector<Tensor>& tensors;

  void tensor(const Tensor& t) { tensors.push_back(t); }
  template <typename S>
  void leaf(const S&) {}
  void open(TreeKind, size_t) {}
  void close() {}
  void enter(size_t) {}
  void enter(std::string_view) {}
  void leave() {}
};

}  // namespace kiln::engine
