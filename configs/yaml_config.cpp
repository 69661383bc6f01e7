#include "kiln/configs/yaml_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unordered_set>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/limits.h"

namespace kiln::configs {
namespace {

std::string origin_of(const std::string& name, const YAML::Mark& mark) {
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// YAML 1.2 core schema resolution of a plain scalar.
Config plain_scalar(const std::string& s) {
  static const std::regex null_re("~|null|Null|NULL|");
  static const std::regex true_re("true|True|TRUE");
  static const std::regex false_re("false|False|FALSE");
  static const std::regex int_re("[-+]?[0-9]+");
  static const std::regex hex_re("0x[0-9a-fA-F]+");
  static const std::regex float_re("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  static const std::regex inf_re("[-+]?\\.(inf|Inf|INF)");
  static const std::regex nan_re("\\.(nan|NaN|NAN)");
  if (std::regex_match(s, null_re)) return Config();
  if (std::regex_match(s, true_re)) return Config(true);
  if (std::regex_match(s, false_re)) return Config(false);
  // strtod, not stod: a float beyond double's range reads as infinity (or 0), as YAML readers
  // do, where stod throws.
  const auto as_double = [&] { return Config(std::strtod(s.c_str(), nullptr)); };
  try {
    if (std::regex_match(s, int_re)) return Config(static_cast<int64_t>(std::stoll(s)));
    if (std::regex_match(s, hex_re))
      return Config(static_cast<int64_t>(std::stoll(s, nullptr, 16)));
  } catch (const std::out_of_range&) {
    return as_double();  // too large for int64: a float, as YAML readers do
  }
  if (std::regex_match(s, float_re)) return as_double();
  if (std::regex_match(s, inf_re))
    return Config(s[0] == '-' ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity());
  if (std::regex_match(s, nan_re)) return Config(std::numeric_limits<double>::quiet_NaN());
  return Config(s);
}

// The length of the UTF-8 sequence starting at text[i], or 0 when it is not valid UTF-8 (bad lead
// or continuation bytes, overlong forms, surrogates, beyond U+10FFFF).
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  const size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (n == 0 || lead > 0xF4 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  const unsigned char second = byte(i + 1);
  if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second >= 0xA0) ||
      (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second >= 0x90))
    return 0;
  return n;
}

// A decoded scalar as UTF-8. yaml-cpp decodes the escapes \_ (U+00A0) and \N (U+0085) of a quoted
// scalar to one raw byte, which is not UTF-8 and would not survive a round trip: refused where it
// is written.
const std::string& utf8_scalar(const YAML::Node& node, const std::string& name) {
  const std::string& text = node.Scalar();
  for (size_t i = 0, n = 0; i < text.size(); i += n) {
    n = utf8_length(text, i);
    KILN_CHECK(n > 0, origin_of(name, node.Mark()),
               ": an escape that does not decode to UTF-8 (\\_ or \\N); write the character "
               "itself");
  }
  return text;
}

// Bounds on what a document may expand to. yaml-cpp shares an anchored node among its aliases,
// but a Config copies it wherever it is used: ten lines of nested aliases can name a billion
// values ("billion laughs"). No run file comes near either bound; the environment raises them.
struct Expansion {
  std::string name;
  int64_t max_values = limit_from_environment("KILN_YAML_MAX_VALUES", 1'000'000);
  int64_t max_depth = limit_from_environment("KILN_YAML_MAX_DEPTH", 200);
  int64_t values = 0;
};

Config convert(const YAML::Node& node, Expansion& e, int64_t depth = 0) {
  const std::string& name = e.name;
  KILN_CHECK(++e.values <= e.max_values, origin_of(name, node.Mark()), ": the document expands to ",
             "more than ", e.max_values, " values (an alias copies its anchor's value wherever ",
             "it is used); set KILN_YAML_MAX_VALUES to allow more");
  KILN_CHECK(depth <= e.max_depth, origin_of(name, node.Mark()), ": nested more than ", e.max_depth,
             " levels deep; set KILN_YAML_MAX_DEPTH to allow more");
  Config out;
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      break;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags plain scalars "?" and quoted ones "!".
      out = node.Tag() == "!" ? Config(utf8_scalar(node, name)) : plain_scalar(node.Scalar());
      break;
    case YAML::NodeType::Sequence:
      out = Config::list();
      for (const YAML::Node& item : node) out.push_back(convert(item, e, depth + 1));
      break;
    case YAML::NodeType::Map: {
      out = Config::map();
      // Keys seen so far, by hash: a map of many keys converts in linear time.
      std::unordered_set<std::string> keys;
      for (const auto& kv : node) {
        KILN_CHECK(kv.first.IsScalar(), origin_of(name, kv.first.Mark()),
                   ": map keys must be plain names");
        const std::string& key = utf8_scalar(kv.first, name);
        KILN_CHECK(keys.insert(key).second, origin_of(name, kv.first.Mark()), ": duplicate key '",
                   key, "'");
        Config value = convert(kv.second, e, depth + 1);
        // A null value has no mark of its own: point at its key.
        if (value.origin().empty())
          value.set_origin(
              origin_of(name, kv.second.IsNull() ? kv.first.Mark() : kv.second.Mark()));
        out.as_map().emplace_back(key, std::move(value));
      }
      break;
    }
  }
  if (node.IsDefined()) out.set_origin(origin_of(name, node.Mark()));
  return out;
}

Config convert(const YAML::Node& node, const std::string& name) {
  Expansion e{name};
  return convert(node, e);
}

// `over` merged onto `base`: maps key by key, anything else replaced.
Config merged(Config base, const Config& over) {
  if (!base.is_map() || !over.is_map()) return over;
  for (const auto& [key, value] : over.as_map()) {
    const Config* old = base.find(key);
    base.set(key, old != nullptr ? merged(*old, value) : value);
  }
  base.set_origin(over.origin());
  return base;
}

// YAML text as yaml-cpp nodes. Run files are printable UTF-8 (YAML 1.2: no control characters
// but tab and line breaks); other bytes would not survive a round trip, so the first one is an
// error at its line and column.
YAML::Node read_yaml(std::string_view text, const std::string& name) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_length(text, i);
    const auto byte = static_cast<unsigned char>(text[i]);
    KILN_CHECK(n > 0, name, ":", line, ":", column, ": not UTF-8 text (byte 0x", std::hex,
               static_cast<int>(byte), ")");
    KILN_CHECK(byte >= 0x20 || byte == '\t' || byte == '\n' || byte == '\r', name, ":", line, ":",
               column, ": a control character (byte 0x", std::hex, static_cast<int>(byte),
               ") where YAML allows only printable text");
    KILN_CHECK(byte != 0x7f, name, ":", line, ":", column,
               ": a control character (byte 0x7f) where YAML allows only printable text");
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += n;
  }
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    throw Error(detail::concat(origin_of(name, e.mark), ": ", e.msg));
  } catch (const YAML::Exception& e) {
    throw Error(detail::concat("cannot read ", name, ": ", e.what()));
  }
}

Config load(const std::string& path, std::vector<std::string>& including) {
  namespace fs = std::filesystem;
  const std::string canonical = fs::weakly_canonical(path).string();
  for (const std::string& p : including)
    KILN_CHECK(p != canonical, path, ": included again while including itself (a cycle)");
  KILN_CHECK(fs::exists(path), "cannot read the run file ", path, ": no such file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  KILN_CHECK(in.good() || in.eof(), "cannot read the run file ", path);
  Config config = convert(read_yaml(text.str(), path), path);
  if (!config.is_map() || !config.contains("include")) return config;
  const Config includes = config["include"];
  config.erase("include");
  including.push_back(canonical);
  Config base = Config::map();
  for (const Config& item : includes.is_list() ? includes.as_list() : Config::List{includes}) {
    const fs::path file = fs::path(path).parent_path() / item.as_string();
    KILN_CHECK(fs::exists(file), item.where(), "include: no such file ", file.string());
    base = merged(std::move(base), load(file.string(), including));
  }
  including.pop_back();
  return merged(std::move(base), config);
}

void emit(YAML::Emitter& out, const Config& c) {
  switch (c.type()) {
    case Config::Type::null:
      out << YAML::Null;
      break;
    case Config::Type::boolean:
      out << c.as_bool();
      break;
    case Config::Type::integer:
      out << c.as_int();
      break;
    case Config::Type::floating: {
      // Full precision, and always readable back as a float (1.0, not 1).
      const double v = c.as_double();
      std::string text = std::isnan(v)   ? ".nan"
                         : std::isinf(v) ? (v < 0 ? "-.inf" : ".inf")
                                         : c.to_json();
      if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
      out << text;
      break;
    }
    case Config::Type::string: {
      // Plain only when it reads back as this string: not a null, bool or number, and nothing
      // a plain scalar cannot hold (control characters such as a lone \r, edge spaces).
      const std::string& s = c.as_string();
      const bool plain = plain_scalar(s).is_string() && !s.empty() && s.front() != ' ' &&
                         s.back() != ' ' && std::none_of(s.begin(), s.end(), [](unsigned char ch) {
                           return ch < 0x20 || ch == 0x7f;
                         });
      if (plain)
        out << s;
      else
        out << YAML::DoubleQuoted << s;
      break;
    }
    case Config::Type::list:
      out << YAML::BeginSeq;
      for (const Config& item : c.as_list()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case Config::Type::map:
      out << YAML::BeginMap;
      for (const auto& [key, value] : c.as_map()) {
        out << YAML::Key << key << YAML::Value;
        emit(out, value);
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

std::string to_yaml(const Config& config) {
  YAML::Emitter out;
  emit(out, config);
  return std::string(out.c_str()) + "\n";
}

Config load_yaml_file(const std::string& path) {
  std::vector<std::string> including;
  Config config = load(path, including);
  config.set_path("");
  return config;
}

Config parse_yaml(std::string_view text, const std::string& name) {
  Config config = convert(read_yaml(text, name), name);
  config.set_path("");
  return config;
}

void apply_override(Config& config, std::string_view assignment, const std::string& origin) {
  const size_t eq = assignment.find('=');
  KILN_CHECK(eq != std::string_view::npos && eq > 0, origin, ": '", assignment,
             "' is not key.path=value");
  const std::string path(assignment.substr(0, eq));
  Config value = parse_yaml(assignment.substr(eq + 1), origin);
  value.set_origin(origin);
  // Split "a.b[2].c" into a, b, 2, c.
  std::vector<std::string> keys;
  std::string part;
  for (const char c : path) {
    if (c == '.' || c == '[' || c == ']') {
      if (!part.empty()) keys.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  if (!part.empty()) keys.push_back(part);
  KILN_CHECK(!keys.empty(), origin, ": '", assignment, "' names no key");
  Config* at = &config;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& key = keys[i];
    const bool last = i + 1 == keys.size();
    if (at->is_list()) {
      KILN_CHECK(key.find_first_not_of("0123456789") == std::string::npos, origin, ": '", path,
                 "': '", key, "' indexes a list, so it must be a number");
      const auto index = static_cast<size_t>(std::stoull(key));
      KILN_CHECK(index < at->size(), origin, ": '", path, "': index ", index,
                 " is past the end of a list of ", at->size());
      Config& item = at->as_list()[index];
      if (last) item = value;
      at = &item;
      continue;
    }
    if (!at->is_map()) *at = Config::map();
    if (last) {
      at->set(key, value);
    } else if (at->find(key) == nullptr) {
      at->set(key, Config::map());
    }
    at = at->find(key);
  }
  config.set_path("");
}

}  // namespace kiln::configs
