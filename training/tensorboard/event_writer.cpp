#include "kiln/training/tensorboard/event_writer.h"

#include <event.pb.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "kiln/framework/core/error.h"
#include "kiln/training/tensorboard/graph_def.h"
#include "kiln/training/tensorboard/histogram.h"
#include "kiln/training/tensorboard/tfrecord.h"

namespace kiln::tensorboard {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// events.out.tfevents.<seconds>.<host>.<pid>.<n>.v2: TensorBoard reads files whose names hold
// "tfevents", in name order; the counter keeps two writers of one process apart.
std::string event_file_name() {
  static std::atomic<int> count{0};
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  return detail::concat("events.out.tfevents.", static_cast<int64_t>(now_seconds()), ".", host, ".",
                        getpid(), ".", count++, ".v2");
}

proto::Event event_at(int64_t step) {
  proto::Event event;
  event.set_wall_time(now_seconds());
  event.set_step(step);
  return event;
}

}  // namespace

EventWriter::EventWriter(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  KILN_CHECK(!error, "TensorBoard: cannot create the log directory ", dir, ": ", error.message());
  path_ = (std::filesystem::path(dir) / event_file_name()).string();
  file_.reset(std::fopen(path_.c_str(), "wb"));
  KILN_CHECK(file_ != nullptr, "TensorBoard: cannot create ", path_, ": ", std::strerror(errno));
  proto::Event first = event_at(0);
  first.set_file_version("brain.Event:2");
  write_event(first.SerializeAsString());
  flush();
}

void EventWriter::write_event(const std::string& serialized_event) {
  const std::string record = frame_record(serialized_event);
  KILN_CHECK(std::fwrite(record.data(), 1, record.size(), file_.get()) == record.size(),
             "TensorBoard: cannot write ", path_, ": ", std::strerror(errno));
}

void EventWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  proto::Event event = event_at(step);
  proto::Summary::Value* v = event.mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(static_cast<float>(value));
  write_event(event.SerializeAsString());
}

void EventWriter::add_histogram(const std::string& tag, const Tensor& values, int64_t step) {
  const Histogram h = histogram(values);
  proto::Event event = event_at(step);
  proto::Summary::Value* v = event.mutable_summary()->add_value();
  v->set_tag(tag);
  proto::HistogramProto* p = v->mutable_histo();
  p->set_min(h.min);
  p->set_max(h.max);
  p->set_num(h.num);
  p->set_sum(h.sum);
  p->set_sum_squares(h.sum_squares);
  for (const double limit : h.bucket_limit) p->add_bucket_limit(limit);
  for (const double count : h.bucket) p->add_bucket(count);
  write_event(event.SerializeAsString());
}

void EventWriter::add_graph(const engine::Graph& graph) {
  proto::Event event = event_at(0);
  event.set_graph_def(graph_def(graph));
  write_event(event.SerializeAsString());
}

void EventWriter::flush() {
  KILN_CHECK(std::fflush(file_.get()) == 0, "TensorBoard: cannot write ", path_, ": ",
             std::strerror(errno));
}

}  // namespace kiln::tensorboard
