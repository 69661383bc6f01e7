#include "kiln/configs/keras_objects.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"

namespace kiln::configs {

std::optional<Config> keras_object(const Config& spec, const std::string& what,
                                   const std::vector<std::string>& extra_keys) {
  if (spec.is_string()) return std::nullopt;
  KILN_CHECK(spec.is_map(), spec.where(), what, " must be a name or {ClassName: {arguments}}, got ",
             spec.to_json());
  if (spec.contains("class_name")) {
    spec.check_keys({"class_name", "config", "module", "registered_name"}, what);
    Config out = Config::map();
    out.set("class_name", spec["class_name"]);
    out.set("config", spec.contains("config") ? spec["config"] : Config::map());
    return out;
  }
  std::vector<std::string> classes;
  for (const auto& [key, value] : spec.as_map())
    if (std::find(extra_keys.begin(), extra_keys.end(), key) == extra_keys.end())
      classes.push_back(key);
  KILN_CHECK(classes.size() == 1, spec.where(), what,
             " must name one class, as {ClassName: {arguments}}; got ",
             classes.empty() ? std::string("none") : std::to_string(classes.size()) + " keys");
  const Config& args = spec[classes[0]];
  KILN_CHECK(args.is_map() || args.is_null(), args.where(), "the arguments of ", classes[0],
             " must be a map ({units: 64, ...}), got ", args.to_json());
  Config out = Config::map();
  out.set("class_name", Config(classes[0]).set_origin(spec.find(classes[0])->origin()));
  out.set("config", args.is_null() ? Config::map() : args);
  return out;
}

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
