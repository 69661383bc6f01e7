#pragma once
// Config: the JSON-like value behind every get_config / from_config (layers, losses, optimizers,
// metrics, callbacks), YAML run files and the model_config of checkpoints. Maps keep insertion
// order, as Keras's JSON does. A value may remember where it came from ("run.yaml:12:5"), and
// every access error names that origin and the key path.
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kiln {

class Config {
 public:
  using List = std::vector<Config>;
  using Map = std::vector<std::pair<std::string, Config>>;
  enum class Type { null, boolean, integer, floating, string, list, map };

  Config() = default;  // null
  // Out of line: GCC 12 reports false "may be used uninitialized" warnings for inlined moves of
  // this variant at -O3.
  Config(const Config&);
  Config(Config&&) noexcept;
  Config& operator=(const Config&);
  Config& operator=(Config&&) noexcept;
  ~Config();
  Config(bool v) : value_(v) {}
  Config(int v) : value_(static_cast<int64_t>(v)) {}
  Config(int64_t v) : value_(v) {}
  Config(double v) : value_(v) {}
  Config(const char* v) : value_(std::string(v)) {}
  Config(std::string v) : value_(std::move(v)) {}
  Config(std::string_view v) : value_(std::string(v)) {}
  Config(List v) : value_(std::move(v)) {}
  Config(Map v) : value_(std::move(v)) {}
  Config(const std::vector<int64_t>& v);
  Config(const std::vector<double>& v);
  Config(const std::vector<std::string>& v);

  static Config map() { return Config(Map{}); }
  static Config list() { return Config(List{}); }

  Type type() const { return static_cast<Type>(value_.index()); }
  bool is_null() const { return type() == Type::null; }
  bool is_bool() const { return type() == Type::boolean; }
  bool is_int() const { return type() == Type::integer; }
  bool is_number() const { return is_int() || type() == Type::floating; }
  bool is_string() const { return type() == Type::string; }
  bool is_list() const { return type() == Type::list; }
  bool is_map() const { return type() == Type::map; }

  // Typed reads; a mismatch is an error naming the origin, the path and both types. as_double
  // accepts integers; as_int accepts whole floats.
  bool as_bool() const;
  int64_t as_int() const;
  double as_double() const;
  const std::string& as_string() const;
  const List& as_list() const;
  const Map& as_map() const;
  List& as_list();
  Map& as_map();
  std::vector<int64_t> as_int_list() const;  // a single integer reads as a one-element list
  std::vector<double> as_double_list() const;
  std::vector<std::string> as_string_list() const;

  // Map access. operator[] on a missing key is an error naming the key and the keys present.
  bool contains(std::string_view key) const;
  const Config& operator[](std::string_view key) const;
  const Config* find(std::string_view key) const;
  Config* find(std::string_view key);
  // Inserts or replaces; returns *this so sets chain.
  Config& set(std::string_view key, Config value);
  bool erase(std::string_view key);
  // The value at key, or `fallback` when the key is absent or null.
  bool get_bool(std::string_view key, bool fallback) const;
  int64_t get_int(std::string_view key, int64_t fallback) const;
  double get_double(std::string_view key, double fallback) const;
  std::string get_string(std::string_view key, std::string_view fallback) const;

  // List access.
  size_t size() const;
  const Config& at(size_t i) const;
  void push_back(Config value);

  // Rejects keys outside `known` with "unknown key 'x' for <what> (did you mean 'y'?)".
  void check_keys(std::initializer_list<std::string_view> known, std::string_view what) const;
  void check_keys(const std::vector<std::string>& known, std::string_view what) const;

  // Where the value was read from ("file.yaml:3:7"), and its key path ("model.layers[2].units");
  // both appear in errors. Setting a map or list's path also sets its children's.
  const std::string& origin() const { return origin_; }
  const std::string& path() const { return path_; }
  Config& set_origin(std::string origin);
  Config& set_path(const std::string& path);
  // "file.yaml:3:7: model.layers[2].units: " (the parts that are known).
  std::string where() const;

  // Compact JSON (indent < 0) or pretty-printed; floats keep full precision.
  std::string to_json(int indent = -1) const;
  static Config from_json(std::string_view text);

  // Equal values (origins and paths are ignored; an integer equals the same whole float).
  bool operator==(const Config& other) const;

  static std::string_view type_name(Type type);

 private:
  [[noreturn]] void type_error(std::string_view expected) const;

  std::variant<std::monostate, bool, int64_t, double, std::string, List, Map> value_;
  std::string origin_;
  std::string path_;
};

// Compact JSON (so a failed test comparison shows the values, not raw bytes).
std::ostream& operator<<(std::ostream& os, const Config& config);

}  // namespace kiln
