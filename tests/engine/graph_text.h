#pragma once
// Reading a graph's printed text in pass tests.
#include <string>

namespace kiln::engine::testing {

// The id ("%k") of the first node of `op` in `text` (to_text's format); "" when there is none.
inline std::string id_of_first(const std::string& text, const std::string& op) {
  const size_t at = text.find("= " + op + "(");
  if (at == std::string::npos) return "";
  const size_t line = text.rfind('\n', at) + 1;  // 0 on the first line
  return text.substr(line, text.find(':', line) - line);
}

}  // namespace kiln::engine::testing
