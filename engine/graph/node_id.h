#pragma once
// The id of a graph node, which also names the value it defines (%id); nodes are numbered in
// topological order, so ids compare as positions do. A type of its own so an id never mixes with
// a count, an input's position or an index into another list, and per-node tables (NodeMap) are
// indexed by it without casts.
#include <compare>
#include <cstddef>
#include <ostream>
#include <utility>
#include <vector>

namespace kiln::engine {

class NodeId {
 public:
  constexpr NodeId() = default;  // none: refers to no node
  constexpr explicit NodeId(size_t index) : value_(static_cast<int>(index)) {}

  constexpr int value() const { return value_; }
  constexpr size_t index() const { return static_cast<size_t>(value_); }
  constexpr bool valid() const { return value_ >= 0; }
  friend constexpr auto operator<=>(NodeId, NodeId) = default;

 private:
  int value_ = -1;
};

// The number, as graph texts write it after '%'.
inline std::ostream& operator<<(std::ostream& out, NodeId id) {
  return out << id.value();
}

// The ids 0 .. size-1, in order.
class NodeIds {
 public:
  class Iterator {
   public:
    explicit Iterator(size_t i) : i_(i) {}
    NodeId operator*() const { return NodeId(i_); }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator&) const = default;

   private:
    size_t i_;
  };
  explicit NodeIds(size_t size) : size_(size) {}
  Iterator begin() const { return Iterator(0); }
  Iterator end() const { return Iterator(size_); }

 private:
  size_t size_;
};

// One value per node, indexed by NodeId: the graph's nodes and the passes' and plans' per-node
// tables.
template <typename T>
class NodeMap {
 public:
  using reference = typename std::vector<T>::reference;
  using const_reference = typename std::vector<T>::const_reference;

  NodeMap() = default;
  explicit NodeMap(size_t size, const T& value = T()) : values_(size, value) {}

  reference operator[](NodeId id) { return values_[id.index()]; }
  const_reference operator[](NodeId id) const { return values_[id.index()]; }
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  NodeIds ids() const { return NodeIds(values_.size()); }
  NodeId push_back(T value) {
    values_.push_back(std::move(value));
    return NodeId(values_.size() - 1);
  }
  void reserve(size_t size) { values_.reserve(size); }
  auto begin() { return values_.begin(); }
  auto end() { return values_.end(); }
  auto begin() const { return values_.begin(); }
  auto end() const { return values_.end(); }

 private:
  std::vector<T> values_;
};

}  // namespace kiln::engine
