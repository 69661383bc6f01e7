#include "kiln/training/callbacks/registry.h"

#include <filesystem>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/keras_object.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/training/callbacks/backup_and_restore.h"
#include "kiln/training/callbacks/csv_logger.h"
#include "kiln/training/callbacks/early_stopping.h"
#include "kiln/training/callbacks/model_checkpoint.h"
#include "kiln/training/callbacks/reduce_lr_on_plateau.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/callbacks/tensorboard.h"

namespace kiln::callbacks {
namespace {

// The argument a callback cannot do without (ModelCheckpoint's filepath), read as a string.
std::string required_string(const Config& args, const char* key, const char* class_name) {
  KILN_CHECK(args.contains(key), args.where(), class_name, " needs a ", key);
  return args[key].as_string();
}

// ModelCheckpoint and BackupAndRestore: full checkpoints at a path inside the run (the `path`
// argument), which store the run's description.
template <typename Checkpointing, typename Options>
CallbackFactory checkpointing(const char* class_name, const char* path) {
  return [class_name, path](const Config& a, const CallbackPlace& place) -> CallbackPtr {
    const Options options =
        read_fields(a, Options::fields(), class_name, {.run_config = place.run_config}, {path});
    return std::make_shared<Checkpointing>(inside(place, required_string(a, path, class_name)),
                                           options);
  };
}

NamedRegistry<CallbackFactory>& registry() {
  static NamedRegistry<CallbackFactory> r = [] {
    NamedRegistry<CallbackFactory> built("callback");
    built.add("EarlyStopping", [](const Config& a, const CallbackPlace&) -> CallbackPtr {
      return std::make_shared<EarlyStopping>(
          read_fields(a, EarlyStoppingOptions::fields(), "EarlyStopping"));
    });
    built.add("ReduceLROnPlateau", [](const Config& a, const CallbackPlace&) -> CallbackPtr {
      return std::make_shared<ReduceLROnPlateau>(
          read_fields(a, ReduceLROnPlateauOptions::fields(), "ReduceLROnPlateau"));
    });
    built.add("TerminateOnNaN", [](const Config& a, const CallbackPlace&) -> CallbackPtr {
      a.check_keys(std::vector<std::string>{}, "TerminateOnNaN");
      return std::make_shared<TerminateOnNaN>();
    });
    built.add("ModelCheckpoint", checkpointing<ModelCheckpoint, ModelCheckpointOptions>(
                                     "ModelCheckpoint", "filepath"));
    built.add("BackupAndRestore", checkpointing<BackupAndRestore, BackupAndRestoreOptions>(
                                      "BackupAndRestore", "backup_dir"));
    built.add("CSVLogger", [](const Config& a, const CallbackPlace& place) -> CallbackPtr {
      a.check_keys({"filename", "separator", "append"}, "CSVLogger");
      const std::string sep = a.get_string("separator", ",");
      KILN_CHECK(sep.size() == 1, a["separator"].where(), "separator must be one character");
      return std::make_shared<CSVLogger>(inside(place, required_string(a, "filename", "CSVLogger")),
                                         sep[0], a.get_bool("append", false));
    });
    built.add("TensorBoard", [](const Config& a, const CallbackPlace& place) -> CallbackPtr {
      const TensorBoardOptions options =
          read_fields(a, TensorBoardOptions::fields(), "TensorBoard", {}, {"log_dir"});
      return std::make_shared<TensorBoard>(inside(place, a.get_string("log_dir", "logs")), options);
    });
    return built;
  }();
  return r;
}

}  // namespace

std::string inside(const CallbackPlace& place, const std::string& path) {
  return std::filesystem::path(path).is_absolute()
             ? path
             : (std::filesystem::path(place.output_dir) / path).string();
}

CallbackPtr from_config(const Config& spec, const CallbackPlace& place) {
  const KerasObject object = read_keras_object(spec, "a callback");
  return registry().get(object.class_name.as_string(), object.class_name.where())(object.arguments,
                                                                                  place);
}

Config serialize(const std::string& class_name, const Callback& callback) {
  return Config::map().set("class_name", class_name).set("config", callback.get_config());
}

void register_callback(const std::string& class_name, CallbackFactory factory) {
  KILN_CHECK(factory != nullptr, "register_callback('", class_name, "'): no factory");
  registry().add(class_name, std::move(factory));
}

std::vector<std::string> known_names() {
  return registry().names();
}

}  // namespace kiln::callbacks
