#include "kiln/configs/keras_objects.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"

namespace kiln::configs {

bool points_into_file(const std::string& message, const Config& at) {
  // origin is "path:line:column".
  const std::string& origin = at.origin();
  const size_t column = origin.rfind(':');
  const size_t line = column == std::string::npos ? column : origin.rfind(':', column - 1);
  if (line == std::string::npos) return false;
  return message.find(origin.substr(0, line + 1)) != std::string::npos;
}

void check_class(const Config& spec, const std::string& class_name,
                 const std::vector<std::string>& known, const std::string& what) {
  if (std::find(known.begin(), known.end(), class_name) != known.end()) return;
  const std::string hint = did_you_mean(class_name, known);
  throw Error(detail::concat(spec.where(), "unknown ", what, " '", class_name, "'",
                             hint.empty() ? "" : " (" + hint + ")"));
}

}  // namespace kiln::configs
