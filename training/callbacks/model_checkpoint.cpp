#include "kiln/training/callbacks/model_checkpoint.h"

#include <cstdio>
#include <filesystem>

#include "kiln/framework/core/error.h"
#include "kiln/training/callbacks/filename_template.h"
#include "kiln/training/callbacks/save_freq.h"
#include "kiln/training/model/model.h"
#include "kiln/training/saving/checkpoint.h"

namespace kiln {

Config ModelCheckpoint::get_config() const {
  return write_fields(options_, ModelCheckpointOptions::fields(),
                      Config::map().set("filepath", filepath_));
}

const FieldTable<ModelCheckpointOptions>& ModelCheckpointOptions::fields() {
  using O = ModelCheckpointOptions;
  static const FieldTable<O> table{field("monitor", &O::monitor),
                                   field("verbose", &O::verbose),
                                   field("save_best_only", &O::save_best_only),
                                   field("save_weights_only", &O::save_weights_only),
                                   field("mode", &O::mode),
                                   save_freq_field(&O::save_freq),
                                   field("initial_value_threshold", &O::initial_value_threshold),
                                   field("keep_last", &O::keep_last)};
  return table;
}
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ModelCheckpoint::ModelCheckpoint(std::string filepath, ModelCheckpointOptions options)
    : filepath_(std::move(filepath)),
      options_(std::move(options)),
      monitor_(options_.monitor, parse_monitor_mode(options_.mode), 0),
      weights_only_(options_.save_weights_only || ends_with(filepath_, ".weights.h5")) {
  KILN_CHECK(!options_.save_weights_only || ends_with(filepath_, ".weights.h5"),
             "ModelCheckpoint: with save_weights_only the file name must end in .weights.h5, got '",
             filepath_, "'");
  KILN_CHECK(ends_with(filepath_, ".h5"), "ModelCheckpoint: the file name must end in .h5 (",
             ".weights.h5 for weights only), got '", filepath_, "'");
  KILN_CHECK(options_.save_freq >= 0, "ModelCheckpoint: save_freq must be 0 (each epoch) or a ",
             "number of batches, got ", options_.save_freq);
}

void ModelCheckpoint::on_train_begin(const Logs&) {
  best_ = options_.initial_value_threshold.value_or(monitor_.worst());
  batches_since_save_ = 0;
}

void ModelCheckpoint::on_epoch_begin(int epoch, const Logs&) {
  epoch_ = epoch;
}

void ModelCheckpoint::on_train_batch_end(int64_t batch, const Logs& logs) {
  if (options_.save_freq == 0 || ++batches_since_save_ < options_.save_freq) return;
  batches_since_save_ = 0;
  save(epoch_, batch, epoch_, batch + 1, logs);
}

void ModelCheckpoint::on_epoch_end(int epoch, Logs& logs) {
  if (options_.save_freq == 0) save(epoch, -1, epoch + 1, 0, logs);
}

void ModelCheckpoint::save(int epoch, int64_t batch, int next_epoch, int64_t next_step,
                           const Logs& logs) {
  if (options_.save_best_only) {
    const std::optional<double> current = monitor_.value(logs, "ModelCheckpoint");
    if (!current || !monitor_.improves(*current, best_)) return;
    if (options_.verbose > 0)
      std::printf("\nEpoch %d: %s improved from %.5f to %.5f\n", epoch + 1, monitor_.name().c_str(),
                  best_, *current);
    best_ = *current;
  }
  std::map<std::string, double> fields(logs.begin(), logs.end());
  fields["epoch"] = epoch + 1;
  if (batch >= 0) fields["batch"] = static_cast<double>(batch + 1);
  const std::string path = format_filename(filepath_, fields);
  // As Keras does, the file's directory is made when a file is saved into it.
  if (const auto directory = std::filesystem::path(path).parent_path(); !directory.empty())
    std::filesystem::create_directories(directory);
  if (weights_only_)
    model().save_weights(path);
  else
    saving::save_checkpoint(model().checkpoint_contents(), path, {next_epoch, next_step},
                            options_.run_config);
  if (options_.verbose > 0) std::printf("Epoch %d: saving model to %s\n", epoch + 1, path.c_str());
  last_saved_ = path;
  if (saved_.empty() || saved_.back() != path) saved_.push_back(path);
  while (options_.keep_last > 0 && saved_.size() > static_cast<size_t>(options_.keep_last)) {
    std::filesystem::remove(saved_.front());
    saved_.pop_front();
  }
}

}  // namespace kiln
