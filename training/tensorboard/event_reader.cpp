#include "kiln/training/tensorboard/event_reader.h"

#include <event.pb.h>
#include <graph.pb.h>

#include <algorithm>
#include <filesystem>

#include "kiln/framework/core/error.h"
#include "kiln/training/tensorboard/tfrecord.h"

namespace kiln::tensorboard {
namespace {

Histogram from_proto(const proto::HistogramProto& p) {
  Histogram h{p.min(), p.max(), p.num(), p.sum(), p.sum_squares(), {}, {}};
  h.bucket_limit.assign(p.bucket_limit().begin(), p.bucket_limit().end());
  h.bucket.assign(p.bucket().begin(), p.bucket().end());
  return h;
}

}  // namespace

std::vector<EventRecord> read_event_file(const std::string& path) {
  std::vector<EventRecord> out;
  for (const std::string& bytes : read_records(path)) {
    proto::Event event;
    KILN_CHECK(event.ParseFromString(bytes), path, ": record ", out.size(), " is not an Event");
    EventRecord r;
    r.wall_time = event.wall_time();
    r.step = event.step();
    r.file_version = event.file_version();
    for (const proto::Summary::Value& v : event.summary().value()) {
      if (v.has_histo()) r.histograms.emplace_back(v.tag(), from_proto(v.histo()));
      if (v.value_case() == proto::Summary::Value::kSimpleValue)
        r.scalars.emplace_back(v.tag(), v.simple_value());
    }
    if (event.what_case() == proto::Event::kGraphDef) {
      proto::GraphDef graph;
      KILN_CHECK(graph.ParseFromString(event.graph_def()), path, ": record ", out.size(),
                 " holds a graph that is not a GraphDef");
      r.graph_nodes = graph.node_size();
      for (const proto::NodeDef& node : graph.node()) r.graph_ops.push_back(node.op());
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> event_files(const std::string& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().find("tfevents") != std::string::npos)
      out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kiln::tensorboard
