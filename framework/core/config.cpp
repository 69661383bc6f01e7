#include "kiln/framework/core/config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"

namespace kiln {

Config::Config(const Config&) = default;
Config::Config(Config&&) noexcept = default;
Config& Config::operator=(const Config&) = default;
Config& Config::operator=(Config&&) noexcept = default;
Config::~Config() = default;

Config::Config(const std::vector<int64_t>& v) : value_(List(v.begin(), v.end())) {}
Config::Config(const std::vector<double>& v) : value_(List(v.begin(), v.end())) {}
Config::Config(const std::vector<std::string>& v) : value_(List(v.begin(), v.end())) {}

std::string_view Config::type_name(Type type) {
  switch (type) {
    case Type::null:
      return "null";
    case Type::boolean:
      return "a boolean";
    case Type::integer:
      return "an integer";
    case Type::floating:
      return "a number";
    case Type::string:
      return "a string";
    case Type::list:
      return "a list";
    case Type::map:
      return "a map";
  }
  return "?";
}

std::string Config::where() const {
  std::string out;
  if (!origin_.empty()) out += origin_ + ": ";
  if (!path_.empty()) out += path_ + ": ";
  return out;
}

void Config::type_error(std::string_view expected) const {
  // concat rather than chains of + on strings, which GCC 12 misreads (-Wrestrict).
  std::string got(type_name(type()));
  if (is_string()) got = detail::concat(got, " \"", as_string(), "\"");
  if (is_number() || is_bool()) got = detail::concat(got, " ", to_json());
  throw Error(detail::concat(where(), "expected ", expected, ", got ", got));
}

bool Config::as_bool() const {
  if (!is_bool()) type_error("a boolean");
  return std::get<bool>(value_);
}

int64_t Config::as_int() const {
  if (is_int()) return std::get<int64_t>(value_);
  if (type() == Type::floating) {
    const double d = std::get<double>(value_);
    if (std::nearbyint(d) == d && std::abs(d) < 9.0e15) return static_cast<int64_t>(d);
  }
  type_error("an integer");
}

double Config::as_double() const {
  if (is_int()) return static_cast<double>(std::get<int64_t>(value_));
  if (type() != Type::floating) type_error("a number");
  return std::get<double>(value_);
}

const std::string& Config::as_string() const {
  if (!is_string()) type_error("a string");
  return std::get<std::string>(value_);
}

const Config::List& Config::as_list() const {
  if (!is_list()) type_error("a list");
  return std::get<List>(value_);
}
Config::List& Config::as_list() {
  if (!is_list()) type_error("a list");
  return std::get<List>(value_);
}
const Config::Map& Config::as_map() const {
  if (!is_map()) type_error("a map");
  return std::get<Map>(value_);
}
Config::Map& Config::as_map() {
  if (!is_map()) type_error("a map");
  return std::get<Map>(value_);
}

std::vector<int64_t> Config::as_int_list() const {
  if (is_number()) return {as_int()};
  std::vector<int64_t> out;
  for (const Config& c : as_list()) out.push_back(c.as_int());
  return out;
}
std::vector<double> Config::as_double_list() const {
  if (is_number()) return {as_double()};
  std::vector<double> out;
  for (const Config& c : as_list()) out.push_back(c.as_double());
  return out;
}
std::vector<std::string> Config::as_string_list() const {
  if (is_string()) return {as_string()};
  std::vector<std::string> out;
  for (const Config& c : as_list()) out.push_back(c.as_string());
  return out;
}

const Config* Config::find(std::string_view key) const {
  for (const auto& [k, v] : as_map())
    if (k == key) return &v;
  return nullptr;
}
Config* Config::find(std::string_view key) {
  for (auto& [k, v] : as_map())
    if (k == key) return &v;
  return nullptr;
}
bool Config::contains(std::string_view key) const {
  return is_map() && find(key) != nullptr;
}

const Config& Config::operator[](std::string_view key) const {
  if (const Config* c = find(key)) return *c;
  std::string present;
  for (const auto& [k, v] : as_map()) present += (present.empty() ? "" : ", ") + k;
  throw Error(where() + "missing key '" + std::string(key) +
              "' (keys present: " + (present.empty() ? "none" : present) + ")");
}

Config& Config::set(std::string_view key, Config value) {
  if (is_null()) value_ = Map{};
  if (!path_.empty()) value.set_path(path_ + "." + std::string(key));
  if (Config* c = find(key)) {
    *c = std::move(value);
  } else {
    as_map().emplace_back(std::string(key), std::move(value));
  }
  return *this;
}

bool Config::erase(std::string_view key) {
  Map& m = as_map();
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (it->first == key) {
      m.erase(it);
      return true;
    }
  }
  return false;
}

bool Config::get_bool(std::string_view key, bool fallback) const {
  const Config* c = find(key);
  return c == nullptr || c->is_null() ? fallback : c->as_bool();
}
int64_t Config::get_int(std::string_view key, int64_t fallback) const {
  const Config* c = find(key);
  return c == nullptr || c->is_null() ? fallback : c->as_int();
}
double Config::get_double(std::string_view key, double fallback) const {
  const Config* c = find(key);
  return c == nullptr || c->is_null() ? fallback : c->as_double();
}
std::string Config::get_string(std::string_view key, std::string_view fallback) const {
  const Config* c = find(key);
  return c == nullptr || c->is_null() ? std::string(fallback) : c->as_string();
}

size_t Config::size() const {
  if (is_map()) return as_map().size();
  return as_list().size();
}
const Config& Config::at(size_t i) const {
  const List& l = as_list();
  KILN_CHECK(i < l.size(), where(), "index ", i, " is out of range for a list of ", l.size());
  return l[i];
}
void Config::push_back(Config value) {
  if (is_null()) value_ = List{};
  if (!path_.empty()) value.set_path(path_ + "[" + std::to_string(as_list().size()) + "]");
  as_list().push_back(std::move(value));
}

void Config::check_keys(const std::vector<std::string>& known, std::string_view what) const {
  for (const auto& [k, v] : as_map()) {
    bool found = false;
    for (const std::string& name : known) found = found || name == k;
    if (found) continue;
    const std::string hint = did_you_mean(k, known);
    throw Error(v.where() + "unknown key '" + k + "' for " + std::string(what) +
                (hint.empty() ? "" : " (" + hint + ")"));
  }
}
void Config::check_keys(std::initializer_list<std::string_view> known,
                        std::string_view what) const {
  check_keys(std::vector<std::string>(known.begin(), known.end()), what);
}

Config& Config::set_origin(std::string origin) {
  origin_ = std::move(origin);
  return *this;
}

Config& Config::set_path(const std::string& path) {
  path_ = path;
  if (is_map()) {
    for (auto& [k, v] : as_map()) v.set_path(path.empty() ? k : path + "." + k);
  } else if (is_list()) {
    List& l = as_list();
    for (size_t i = 0; i < l.size(); ++i) l[i].set_path(path + "[" + std::to_string(i) + "]");
  }
  return *this;
}

bool Config::operator==(const Config& other) const {
  if (is_number() && other.is_number()) {
    if (is_int() && other.is_int()) return as_int() == other.as_int();
    return as_double() == other.as_double();
  }
  if (type() != other.type()) return false;
  switch (type()) {
    case Type::null:
      return true;
    case Type::boolean:
      return as_bool() == other.as_bool();
    case Type::string:
      return as_string() == other.as_string();
    case Type::list:
      return as_list() == other.as_list();
    case Type::map: {
      // Order-insensitive: the same keys with equal values.
      if (as_map().size() != other.as_map().size()) return false;
      for (const auto& [k, v] : as_map()) {
        const Config* o = other.find(k);
        if (o == nullptr || !(*o == v)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// ---- JSON ----

namespace {

void write_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string format_double(double d) {
  if (std::isnan(d)) return "NaN";  // as Python's json module writes it
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  // Keep a float recognizable as one ("1.0", not "1").
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

void write_json(std::string& out, const Config& c, int indent, int depth) {
  const auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * d), ' ');
  };
  switch (c.type()) {
    case Config::Type::null:
      out += "null";
      break;
    case Config::Type::boolean:
      out += c.as_bool() ? "true" : "false";
      break;
    case Config::Type::integer:
      out += std::to_string(c.as_int());
      break;
    case Config::Type::floating:
      out += format_double(c.as_double());
      break;
    case Config::Type::string:
      write_string(out, c.as_string());
      break;
    case Config::Type::list: {
      out += '[';
      const auto& l = c.as_list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i > 0) out += indent < 0 ? ", " : ",";
        newline(depth + 1);
        write_json(out, l[i], indent, depth + 1);
      }
      if (!l.empty()) newline(depth);
      out += ']';
      break;
    }
    case Config::Type::map: {
      out += '{';
      const auto& m = c.as_map();
      for (size_t i = 0; i < m.size(); ++i) {
        if (i > 0) out += indent < 0 ? ", " : ",";
        newline(depth + 1);
        write_string(out, m[i].first);
        out += ": ";
        write_json(out, m[i].second, indent, depth + 1);
      }
      if (!m.empty()) newline(depth);
      out += '}';
      break;
    }
  }
}

}  // namespace

std::string Config::to_json(int indent) const {
  std::string out;
  write_json(out, *this, indent, 0);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Config& config) {
  return os << config.to_json();
}

}  // namespace kiln
