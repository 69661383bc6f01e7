#include "kiln/framework/core/keras_object.h"

#include <algorithm>

#include "kiln/framework/core/error.h"

namespace kiln {

std::optional<Config> keras_object(const Config& spec, const std::string& what,
                                   const std::vector<std::string>& extra_keys) {
  if (spec.is_string()) return std::nullopt;
  KILN_CHECK(spec.is_map(), spec.where(), what, " must be a name or {ClassName: {arguments}}, got ",
             spec.to_json());
  if (spec.contains("class_name")) {
    // Keras adds shared_object_id to an object several layers share (one initializer passed to
    // two layers); kiln gives each its own copy, as its values do not differ.
    spec.check_keys({"class_name", "config", "module", "registered_name", "shared_object_id"},
                    what);
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

KerasObject read_keras_object(const Config& spec, const std::string& what) {
  std::optional<Config> object = keras_object(spec, what);
  if (!object) return {spec, Config::map()};
  KerasObject out{(*object)["class_name"], (*object)["config"]};
  KILN_CHECK(out.class_name.is_string(), out.class_name.where(), what,
             ": class_name must be a string, got ", out.class_name.to_json());
  KILN_CHECK(out.arguments.is_map(), out.arguments.where(), what, " ", out.class_name.as_string(),
             ": config must be a map, got ", out.arguments.to_json());
  return out;
}

Config serialize_keras_object(std::string_view module, const std::string& class_name,
                              Config config) {
  return Config::map()
      .set("module", module)
      .set("class_name", class_name)
      .set("config", std::move(config))
      .set("registered_name", Config());
}

}  // namespace kiln
