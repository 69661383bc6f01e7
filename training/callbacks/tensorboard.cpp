#include "kiln/training/callbacks/tensorboard.h"

#include <chrono>
#include <filesystem>

#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"
#include "kiln/training/tensorboard/event_writer.h"

namespace kiln {

Config TensorBoard::get_config() const {
  return write_fields(options_, TensorBoardOptions::fields(),
                      Config::map().set("log_dir", log_dir_));
}
namespace {

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The inner optimizer's count under loss scaling, as Keras's model.optimizer.iterations.
int64_t optimizer_iterations(const Model& model) {
  return model.trainer().optimizer().iterations().value().item<int64_t>();
}

}  // namespace

const FieldTable<TensorBoardOptions>& TensorBoardOptions::fields() {
  using O = TensorBoardOptions;
  static const FieldTable<O> table{
      field("histogram_freq", &O::histogram_freq),
      field("write_graph", &O::write_graph),
      field("write_steps_per_second", &O::write_steps_per_second),
      field(
          "update_freq", &O::update_freq,
          [](const Config& value) -> int64_t {
            if (value.is_string() && value.as_string() == "epoch") return 0;
            if (value.is_string() && value.as_string() == "batch") return 1;
            KILN_CHECK(value.is_int() && value.as_int() > 0, value.where(),
                       "update_freq must be \"epoch\", \"batch\" or a positive number of batches");
            return value.as_int();
          },
          [](int64_t freq) { return freq == 0 ? Config("epoch") : Config(freq); }),
      fixed_field<O>("write_images", false),
      fixed_field<O>("profile_batch", 0),
      fixed_field<O>("embeddings_freq", 0),
      null_field<O>("embeddings_metadata")};
  return table;
}

TensorBoard::TensorBoard(std::string log_dir, TensorBoardOptions options)
    : log_dir_(std::move(log_dir)), options_(std::move(options)) {
  KILN_CHECK(options_.histogram_freq >= 0, "TensorBoard: histogram_freq must be >= 0, got ",
             options_.histogram_freq);
  KILN_CHECK(options_.update_freq >= 0, "TensorBoard: update_freq must be >= 0, got ",
             options_.update_freq);
}

TensorBoard::~TensorBoard() = default;

tensorboard::EventWriter& TensorBoard::train_writer() {
  if (!train_)
    train_ = std::make_unique<tensorboard::EventWriter>(
        (std::filesystem::path(log_dir_) / "train").string());
  return *train_;
}

tensorboard::EventWriter& TensorBoard::validation_writer() {
  if (!validation_)
    validation_ = std::make_unique<tensorboard::EventWriter>(
        (std::filesystem::path(log_dir_) / "validation").string());
  return *validation_;
}

void TensorBoard::on_train_begin(const Logs&) {
  // Batches count on from the optimizer's steps, as Keras's do: a second fit or a resumed run
  // continues the curves instead of drawing over them. (fit builds the optimizer before.)
  batch_step_ = optimizer_iterations(model());
  // A step that runs eagerly (run_eagerly) has no graph.
  graph_pending_ = options_.write_graph && !model().trainer().options().run_eagerly;
  train_writer();
}

void TensorBoard::on_train_batch_begin(int64_t batch, const Logs&) {
  group_begin_ = batch;
}

void TensorBoard::on_train_batch_end(int64_t batch, const Logs& logs) {
  // After the first call, as Keras: the step has been traced by then.
  if (graph_pending_) {
    const StepFunction* step = model().trainer().train_function();
    if (step != nullptr && step->num_traces() > 0) {
      train_writer().add_graph(*step->graph(0));
      graph_pending_ = false;
    }
  }
  // One call covers a group of steps_per_execution batches: its logs are written at the group's
  // last batch when the group reaches a multiple of update_freq.
  const int64_t before = batch_step_;
  batch_step_ += batch - group_begin_ + 1;
  if (options_.update_freq == 0 ||
      before / options_.update_freq == batch_step_ / options_.update_freq)
    return;
  for (const auto& [name, value] : logs)
    train_writer().add_scalar("batch_" + name, value, batch_step_);
}

void TensorBoard::on_epoch_begin(int, const Logs&) {
  if (!options_.write_steps_per_second) return;
  epoch_start_iterations_ = optimizer_iterations(model());
  epoch_start_seconds_ = monotonic_seconds();
}

void TensorBoard::on_epoch_end(int epoch, Logs& logs) {
  Logs train, validation;
  for (const auto& [name, value] : logs)
    (name.starts_with("val_") ? validation[name.substr(4)] : train[name]) = value;
  log_learning_rate(model(), train);
  if (options_.write_steps_per_second)
    train["steps_per_second"] =
        static_cast<double>(optimizer_iterations(model()) - epoch_start_iterations_) /
        (monotonic_seconds() - epoch_start_seconds_);
  for (const auto& [name, value] : train) train_writer().add_scalar("epoch_" + name, value, epoch);
  if (!validation.empty()) {
    for (const auto& [name, value] : validation)
      validation_writer().add_scalar("epoch_" + name, value, epoch);
    validation_writer().flush();
  }
  if (options_.histogram_freq > 0 && epoch % options_.histogram_freq == 0) log_weights(epoch);
  train_writer().flush();
}

void TensorBoard::log_weights(int epoch) {
  for (const layers::LayerPtr& layer : model().layers())
    for (const Variable& weight : layer->weights())
      train_writer().add_histogram(weight.name() + "/histogram", weight.value(), epoch);
}

void TensorBoard::on_test_end(const Logs& logs) {
  if (!model().compiled() || logs.empty()) return;
  const int64_t step = optimizer_iterations(model());
  for (const auto& [name, value] : logs)
    validation_writer().add_scalar("evaluation_" + name + "_vs_iterations", value, step);
  validation_writer().flush();
}

void TensorBoard::on_train_end(const Logs&) {
  train_.reset();
  validation_.reset();
}

}  // namespace kiln
