#pragma once
// An event file for one TensorBoard run directory (log_dir/train, log_dir/validation):
// events.out.tfevents.<seconds>.<host>.<pid>.<n>.v2, TensorBoard's naming, holding TFRecord-framed
// Event protos: the file version first, then scalars, histograms and graphs by step. Only
// training/tensorboard's sources see the protobuf types.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::engine {
struct Graph;
}

namespace kiln::tensorboard {

class EventWriter {
 public:
  // Creates `dir` (and its parents) and a new event file in it; an error names the directory.
  explicit EventWriter(const std::string& dir);
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  const std::string& path() const { return path_; }

  void add_scalar(const std::string& tag, double value, int64_t step);
  // The values of `values` (any floating or integer dtype, any device) in 30 equal-width buckets
  // between their minimum and maximum, as tf.summary.histogram makes them.
  void add_histogram(const std::string& tag, const Tensor& values, int64_t step);
  // A traced step's graph for TensorBoard's graph dashboard (graph_def.h).
  void add_graph(const engine::Graph& graph);
  // Hands what is written to the OS, so TensorBoard sees it while training runs.
  void flush();

 private:
  void write_event(const std::string& serialized_event);
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
};

}  // namespace kiln::tensorboard
