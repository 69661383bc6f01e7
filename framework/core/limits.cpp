#include "kiln/framework/core/limits.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

#include "kiln/framework/core/error.h"

namespace kiln {

int64_t limit_from_environment(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr) return fallback;
  int64_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, value);
  KILN_CHECK(error == std::errc() && stop == end && value > 0, "environment variable ", name, "='",
             text, "': expected a positive integer");
  return value;
}

}  // namespace kiln
