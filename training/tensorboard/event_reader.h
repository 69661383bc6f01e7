#pragma once
// Event files read back: what each Event of a TensorBoard file holds, in plain C++ types, with
// every record's CRCs checked (tfrecord.h). For tests and for looking into a run's logs without
// TensorBoard.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kiln/training/tensorboard/histogram.h"

namespace kiln::tensorboard {

struct EventRecord {
  double wall_time = 0;
  int64_t step = 0;
  std::string file_version;                                   // the first event's
  std::vector<std::pair<std::string, double>> scalars;        // tag, value
  std::vector<std::pair<std::string, Histogram>> histograms;  // tag, histogram
  int64_t graph_nodes = -1;                                   // -1: no graph in this event
  std::vector<std::string> graph_ops;                         // each node's op, for a graph
};

// Every event of the file at `path`; a record that is not an Event is an error naming it.
std::vector<EventRecord> read_event_file(const std::string& path);

// The event files (names holding "tfevents") in `dir`, sorted by name as TensorBoard reads them.
std::vector<std::string> event_files(const std::string& dir);

}  // namespace kiln::tensorboard
