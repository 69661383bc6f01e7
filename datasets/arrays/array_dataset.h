#pragma once
// Datasets over arrays that stay in their files (array_source.h): elements (x[i], y[i], ...) in
// row order, and Keras's timeseries_dataset_from_array windows.
#include <cstdint>
#include <optional>
#include <vector>

#include "kiln/datasets/arrays/array_source.h"
#include "kiln/datasets/dataset.h"

namespace kiln::datasets {

// Element i holds row begin + i of every column, for rows [begin, end) (end -1: the last row);
// the columns must have as many rows, or the error names both. Rows are read a slab at a time,
// so a pass holds one slab of each column, not the arrays.
Dataset array_dataset(const std::vector<ArraySourcePtr>& columns, int64_t begin = 0,
                      int64_t end = -1);

// keras.utils.timeseries_dataset_from_array's arguments (batching and the final shuffle buffer
// are the pipeline's).
struct TimeseriesOptions {
  int64_t sequence_length = 1;
  int64_t sequence_stride = 1;
  int64_t sampling_rate = 1;
  int64_t start_index = 0;
  int64_t end_index = -1;  // -1: the data's length
  bool shuffle = false;    // the windows' start positions, with numpy's RandomState(seed)
  uint32_t seed = 0;
};

// The number of windows and their start positions (relative to start_index), in Keras's order:
// 0, stride, 2 * stride, ... below min(end - start - (length - 1) * rate, len(targets)),
// shuffled as Keras shuffles them. Errors (as Keras's checks) name `what`.
std::vector<int64_t> timeseries_starts(int64_t data_rows, std::optional<int64_t> target_rows,
                                       const TimeseriesOptions& options, const std::string& what);

// Element i is data[start_index + starts[i] + k * sampling_rate] for k < sequence_length,
// stacked [sequence_length, row...], and with targets (null: none), targets[start_index +
// starts[i]]: the windows of `starts` (timeseries_starts, or a split of them).
Dataset timeseries_windows(const ArraySourcePtr& data, const ArraySourcePtr& targets,
                           const TimeseriesOptions& options, std::vector<int64_t> starts);

// Every window of timeseries_starts: Keras's timeseries_dataset_from_array.
Dataset timeseries_dataset(const ArraySourcePtr& data, const ArraySourcePtr& targets,
                           const TimeseriesOptions& options);

}  // namespace kiln::datasets
