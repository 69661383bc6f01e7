#pragma once
// The `callbacks` list of a run file: Keras callbacks by class name with Keras's arguments.
//
//   callbacks:
//     - EarlyStopping: {monitor: val_loss, patience: 2, restore_best_weights: true}
//     - ReduceLROnPlateau: {factor: 0.5, patience: 1}
//     - TerminateOnNaN: {}
//     - ModelCheckpoint: {filepath: "best.weights.h5", save_best_only: true}
//     - BackupAndRestore: {backup_dir: backup, save_freq: 100}
//     - CSVLogger: {filename: extra_log.csv}
//     - TensorBoard: {log_dir: logs, histogram_freq: 1, update_freq: 100}
//
// Relative paths are taken inside the run's output directory (TensorBoard's log_dir defaults to
// <run>/logs); full checkpoints (ModelCheckpoint,
// BackupAndRestore) store run_config, the resolved run as JSON.
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/training/callbacks/callback.h"

namespace kiln::configs {

std::vector<CallbackPtr> build_callbacks(const Config& list, const std::string& output_dir,
                                         const std::string& run_config = "");

}  // namespace kiln::configs
