#include "kiln/training/callbacks/filename_template.h"

#include <cmath>
#include <cstdio>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"

namespace kiln {
namespace {

// One field's value under a spec such as "02d", ".4f", "e" or "".
std::string format_value(double value, const std::string& spec, const std::string& pattern) {
  size_t i = 0;
  std::string flags;
  if (i < spec.size() && spec[i] == '0') flags = "0", ++i;
  std::string width;
  while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) width += spec[i++];
  std::string precision;
  if (i < spec.size() && spec[i] == '.') {
    precision = ".";
    for (++i; i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]));)
      precision += spec[i++];
  }
  const char type = i < spec.size() ? spec[i++] : '\0';
  KILN_CHECK(i == spec.size() &&
                 (type == '\0' || type == 'd' || type == 'f' || type == 'e' || type == 'g'),
             "file name template '", pattern, "': format spec '", spec,
             "' is not [0][width][.precision][d|f|e|g]");
  char buffer[64];
  const bool integral =
      type == 'd' || (type == '\0' && value == std::floor(value) && std::abs(value) < 1e15);
  if (integral) {
    const std::string f = "%" + flags + width + "lld";
    std::snprintf(buffer, sizeof buffer, f.c_str(), static_cast<long long>(std::llround(value)));
  } else {
    const std::string f = "%" + flags + width + precision + (type == '\0' ? 'g' : type);
    std::snprintf(buffer, sizeof buffer, f.c_str(), value);
  }
  return buffer;
}

}  // namespace

std::string format_filename(const std::string& pattern,
                            const std::map<std::string, double>& values) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') {
      out += pattern[i];
      continue;
    }
    const size_t close = pattern.find('}', i);
    KILN_CHECK(close != std::string::npos, "file name template '", pattern, "': '{' at ", i,
               " is never closed");
    const std::string field = pattern.substr(i + 1, close - i - 1);
    const size_t colon = field.find(':');
    const std::string name = field.substr(0, colon);
    const auto it = values.find(name);
    if (it == values.end()) {
      std::vector<std::string> known;
      for (const auto& [key, value] : values) known.push_back(key);
      const std::string hint = did_you_mean(name, known);
      throw Error(detail::concat("file name template '", pattern, "': no value named '", name, "'",
                                 hint.empty() ? "" : " (" + hint + ")"));
    }
    out += format_value(it->second, colon == std::string::npos ? "" : field.substr(colon + 1),
                        pattern);
    i = close;
  }
  return out;
}

}  // namespace kiln
