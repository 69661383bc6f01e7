#include "kiln/configs/callback_builder.h"

#include <filesystem>
#include <functional>
#include <map>

#include "kiln/configs/keras_objects.h"
#include "kiln/framework/core/error.h"
#include "kiln/training/callbacks/backup_and_restore.h"
#include "kiln/training/callbacks/csv_logger.h"
#include "kiln/training/callbacks/early_stopping.h"
#include "kiln/training/callbacks/model_checkpoint.h"
#include "kiln/training/callbacks/reduce_lr_on_plateau.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/callbacks/tensorboard.h"

namespace kiln::configs {
namespace {

// Where a run writes: relative paths go into output_dir; full checkpoints store run_config.
struct RunPlace {
  const std::string& output_dir;
  const std::string& run_config;
};

using Factory = std::function<CallbackPtr(const Config& args, const RunPlace& run)>;

std::string inside(const std::string& output_dir, const std::string& path) {
  return std::filesystem::path(path).is_absolute()
             ? path
             : (std::filesystem::path(output_dir) / path).string();
}

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> table{
      {"EarlyStopping",
       [](const Config& a, const RunPlace&) -> CallbackPtr {
         return std::make_shared<EarlyStopping>(
             read_fields(a, EarlyStoppingOptions::fields(), "EarlyStopping"));
       }},
      {"ReduceLROnPlateau",
       [](const Config& a, const RunPlace&) -> CallbackPtr {
         return std::make_shared<ReduceLROnPlateau>(
             read_fields(a, ReduceLROnPlateauOptions::fields(), "ReduceLROnPlateau"));
       }},
      {"TerminateOnNaN",
       [](const Config& a, const RunPlace&) -> CallbackPtr {
         a.check_keys(std::vector<std::string>{}, "TerminateOnNaN");
         return std::make_shared<TerminateOnNaN>();
       }},
      {"ModelCheckpoint",
       [](const Config& a, const RunPlace& run) -> CallbackPtr {
         const ModelCheckpointOptions options =
             read_fields(a, ModelCheckpointOptions::fields(), "ModelCheckpoint",
                         {.run_config = run.run_config}, {"filepath"});
         KILN_CHECK(a.contains("filepath"), a.where(), "ModelCheckpoint needs a filepath");
         return std::make_shared<ModelCheckpoint>(inside(run.output_dir, a["filepath"].as_string()),
                                                  options);
       }},
      {"BackupAndRestore",
       [](const Config& a, const RunPlace& run) -> CallbackPtr {
         const BackupAndRestoreOptions options =
             read_fields(a, BackupAndRestoreOptions::fields(), "BackupAndRestore",
                         {.run_config = run.run_config}, {"backup_dir"});
         KILN_CHECK(a.contains("backup_dir"), a.where(), "BackupAndRestore needs a backup_dir");
         return std::make_shared<BackupAndRestore>(
             inside(run.output_dir, a["backup_dir"].as_string()), options);
       }},
      {"CSVLogger",
       [](const Config& a, const RunPlace& run) -> CallbackPtr {
         a.check_keys({"filename", "separator", "append"}, "CSVLogger");
         KILN_CHECK(a.contains("filename"), a.where(), "CSVLogger needs a filename");
         const std::string sep = a.get_string("separator", ",");
         KILN_CHECK(sep.size() == 1, a["separator"].where(), "separator must be one character");
         return std::make_shared<CSVLogger>(inside(run.output_dir, a["filename"].as_string()),
                                            sep[0], a.get_bool("append", false));
       }},
      {"TensorBoard",
       [](const Config& a, const RunPlace& run) -> CallbackPtr {
         const TensorBoardOptions options =
             read_fields(a, TensorBoardOptions::fields(), "TensorBoard", {}, {"log_dir"});
         return std::make_shared<TensorBoard>(
             inside(run.output_dir, a.get_string("log_dir", "logs")), options);
       }},
  };
  return table;
}

}  // namespace

std::vector<CallbackPtr> build_callbacks(const Config& list, const std::string& output_dir,
                                         const std::string& run_config) {
  std::vector<CallbackPtr> out;
  if (list.is_null()) return out;
  KILN_CHECK(list.is_list(), list.where(), "callbacks must be a list");
  std::vector<std::string> known;
  for (const auto& [name, factory] : factories()) known.push_back(name);
  for (const Config& entry : list.as_list()) {
    const std::optional<Config> object = keras_object(entry, "a callback");
    const Config spec =
        object ? *object : Config::map().set("class_name", entry).set("config", Config::map());
    const std::string name = spec["class_name"].as_string();
    check_class(entry, name, known, "callback");
    out.push_back(factories().at(name)(spec["config"], RunPlace{output_dir, run_config}));
  }
  return out;
}

}  // namespace kiln::configs
