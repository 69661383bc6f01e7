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

std::optional<double> optional_double(const Config& args, const char* key) {
  const Config* v = args.find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return v->as_double();
}

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> table{
      {"EarlyStopping",
       [](const Config& a, const RunPlace&) -> CallbackPtr {
         a.check_keys({"monitor", "min_delta", "patience", "mode", "baseline",
                       "restore_best_weights", "start_from_epoch", "verbose"},
                      "EarlyStopping");
         return std::make_shared<EarlyStopping>(EarlyStoppingOptions{
             .monitor = a.get_string("monitor", "val_loss"),
             .min_delta = a.get_double("min_delta", 0),
             .patience = static_cast<int>(a.get_int("patience", 0)),
             .mode = a.get_string("mode", "auto"),
             .baseline = optional_double(a, "baseline"),
             .restore_best_weights = a.get_bool("restore_best_weights", false),
             .start_from_epoch = static_cast<int>(a.get_int("start_from_epoch", 0)),
             .verbose = static_cast<int>(a.get_int("verbose", 0))});
       }},
      {"ReduceLROnPlateau",
       [](const Config& a, const RunPlace&) -> CallbackPtr {
         a.check_keys({"monitor", "factor", "patience", "mode", "min_delta", "cooldown", "min_lr",
                       "verbose"},
                      "ReduceLROnPlateau");
         return std::make_shared<ReduceLROnPlateau>(
             ReduceLROnPlateauOptions{.monitor = a.get_string("monitor", "val_loss"),
                                      .factor = a.get_double("factor", 0.1),
                                      .patience = static_cast<int>(a.get_int("patience", 10)),
                                      .mode = a.get_string("mode", "auto"),
                                      .min_delta = a.get_double("min_delta", 1e-4),
                                      .cooldown = static_cast<int>(a.get_int("cooldown", 0)),
                                      .min_lr = a.get_double("min_lr", 0),
                                      .verbose = static_cast<int>(a.get_int("verbose", 0))});
       }},
      {"TerminateOnNaN",
       [](const Config& a, const RunPlace&) -> CallbackPtr {
         a.check_keys(std::vector<std::string>{}, "TerminateOnNaN");
         return std::make_shared<TerminateOnNaN>();
       }},
      {"ModelCheckpoint",
       [](const Config& a, const RunPlace& run) -> CallbackPtr {
         a.check_keys({"filepath", "monitor", "verbose", "save_best_only", "save_weights_only",
                       "mode", "save_freq", "initial_value_threshold"},
                      "ModelCheckpoint");
         KILN_CHECK(a.contains("filepath"), a.where(), "ModelCheckpoint needs a filepath");
         return std::make_shared<ModelCheckpoint>(
             inside(run.output_dir, a["filepath"].as_string()),
             ModelCheckpointOptions{
                 .monitor = a.get_string("monitor", "val_loss"),
                 .verbose = static_cast<int>(a.get_int("verbose", 0)),
                 .save_best_only = a.get_bool("save_best_only", false),
                 .save_weights_only = a.get_bool("save_weights_only", false),
                 .mode = a.get_string("mode", "auto"),
                 .save_freq = save_freq_of(a),
                 .initial_value_threshold = optional_double(a, "initial_value_threshold"),
                 .run_config = run.run_config});
       }},
      {"BackupAndRestore",
       [](const Config& a, const RunPlace& run) -> CallbackPtr {
         a.check_keys({"backup_dir", "save_freq", "delete_checkpoint"}, "BackupAndRestore");
         KILN_CHECK(a.contains("backup_dir"), a.where(), "BackupAndRestore needs a backup_dir");
         return std::make_shared<BackupAndRestore>(
             inside(run.output_dir, a["backup_dir"].as_string()),
             BackupAndRestoreOptions{.save_freq = save_freq_of(a),
                                     .delete_checkpoint = a.get_bool("delete_checkpoint", true),
                                     .run_config = run.run_config});
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
  };
  return table;
}

}  // namespace

int64_t save_freq_of(const Config& spec) {
  const Config* f = spec.find("save_freq");
  if (f == nullptr || (f->is_string() && f->as_string() == "epoch")) return 0;
  KILN_CHECK(f->is_int() && f->as_int() > 0, f->where(),
             "save_freq must be \"epoch\" or a positive number of batches");
  return f->as_int();
}

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
