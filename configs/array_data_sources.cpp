// Arrays that stay in their files (datasets/arrays/), as run-file sources:
//   npy:  {x: features.npy, y: labels.npy}             # y optional; first axis: the example
//   npz:  {path: train.npz, x: x_train, y: y_train}    # np.savez's keys
//   hdf5: {path: train.h5, x: /features, y: /labels}   # dataset names
//   timeseries: {data: temps.npy, targets: "targets.npz:y", sequence_length: 24,
//                sequence_stride: 1, sampling_rate: 6, start_index: 0, end_index: null}
// timeseries is Keras's timeseries_dataset_from_array over any array ("file.npy",
// "file.npz:key", "file.h5:/name"). The section's limit keeps the first rows (windows), its
// validation_split holds out the last ones (the latest windows: no training window comes after
// a validation one), and its shuffle shuffles the training rows every epoch (windows: their
// start positions as Keras shuffles them, with the run's seed, then every epoch).
#include <algorithm>

#include "kiln/configs/data_sources.h"
#include "kiln/configs/keras_objects.h"
#include "kiln/datasets/arrays/array_dataset.h"
#include "kiln/datasets/numpy_shuffle.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::configs {
namespace {

using datasets::ArraySourcePtr;

constexpr size_t kShuffleBuffer = 10000;

struct Columns {
  ArraySourcePtr x, y;  // y null: no labels
};

ArraySourcePtr open_at(const Config& at, const std::string& reference) {
  return located(at, [&] { return datasets::open_array(reference); });
}

Columns npy_columns(const Config& args) {
  KILN_CHECK(args.contains("x"), args.where(), "npy needs x (a .npy file of the examples)");
  return {open_at(args["x"], args["x"].as_string()),
          args.contains("y") ? open_at(args["y"], args["y"].as_string()) : nullptr};
}

// npz and hdf5: a path and the names of x and y in it.
Columns member_columns(const Config& args, const std::string& source) {
  KILN_CHECK(args.contains("path"), args.where(), source, " needs a path");
  KILN_CHECK(args.contains("x"), args.where(), source, " needs x (the name of the examples' ",
             "array in ", args["path"].as_string(), ")");
  const std::string path = args["path"].as_string();
  const auto member = [&](const char* key) {
    return open_at(args[key], path + ":" + args[key].as_string());
  };
  return {member("x"), args.contains("y") ? member("y") : nullptr};
}

// num_features (a row's size), and num_classes for integer labels (the largest plus one).
std::map<std::string, Config> facts_of(const ArraySourcePtr& x, const ArraySourcePtr& y) {
  std::map<std::string, Config> facts{{"num_features", Config(x->row_shape().numel())}};
  if (y && (y->dtype() == DType::i32 || y->dtype() == DType::i64 || y->dtype() == DType::u8)) {
    const Tensor largest = ops::max(ops::cast(y->read(0, y->rows()), DType::i64));
    facts.emplace("num_classes", Config(largest.item<int64_t>() + 1));
  }
  return facts;
}

RunData arrays_run(const Columns& c, const Config& data, uint64_t seed) {
  std::vector<ArraySourcePtr> columns{c.x};
  if (c.y) columns.push_back(c.y);
  int64_t rows = c.x->rows();
  if (const int64_t limit = data.get_int("limit", 0); limit > 0) rows = std::min(rows, limit);
  const double split = data.get_double("validation_split", 0);
  const auto keep = static_cast<int64_t>(static_cast<double>(rows) * (1 - split));
  KILN_CHECK(keep > 0, c.x->name(), ": no training rows (", rows, " rows, validation_split ", split,
             ")");
  const int64_t batch = data.get_int("batch_size", 32);
  datasets::Dataset train = datasets::array_dataset(columns, 0, keep);
  if (data.get_bool("shuffle", true))
    train = train.shuffle(std::clamp<size_t>(static_cast<size_t>(keep), 1, kShuffleBuffer), seed);
  std::optional<datasets::Dataset> validation;
  if (split > 0) validation = datasets::array_dataset(columns, keep, rows).batch(batch);
  return {train.batch(batch), validation, std::nullopt, facts_of(c.x, c.y)};
}

datasets::TimeseriesOptions timeseries_options(const Config& args) {
  KILN_CHECK(args.contains("sequence_length"), args.where(), "timeseries needs a sequence_length");
  return {.sequence_length = args.get_int("sequence_length", 1),
          .sequence_stride = args.get_int("sequence_stride", 1),
          .sampling_rate = args.get_int("sampling_rate", 1),
          .start_index = args.get_int("start_index", 0),
          .end_index = args.contains("end_index") && !args["end_index"].is_null()
                           ? args["end_index"].as_int()
                           : -1};
}

Columns timeseries_columns(const Config& args) {
  KILN_CHECK(args.contains("data"), args.where(),
             "timeseries needs data (an array: file.npy, file.npz:key or file.h5:/name)");
  return {
      open_at(args["data"], args["data"].as_string()),
      args.contains("targets") ? open_at(args["targets"], args["targets"].as_string()) : nullptr};
}

RunData timeseries(const Config& args, const Config& data, uint64_t seed) {
  const Columns c = timeseries_columns(args);
  const datasets::TimeseriesOptions o = timeseries_options(args);
  std::vector<int64_t> starts = located(args, [&] {
    return datasets::timeseries_starts(c.x->rows(), c.y ? std::optional(c.y->rows()) : std::nullopt,
                                       o, c.x->name());
  });
  if (const int64_t limit = data.get_int("limit", 0); limit > 0 && limit < std::ssize(starts))
    starts.resize(static_cast<size_t>(limit));
  const double split = data.get_double("validation_split", 0);
  const auto keep = static_cast<int64_t>(static_cast<double>(starts.size()) * (1 - split));
  KILN_CHECK(keep > 0, c.x->name(), ": no training windows (", starts.size(),
             " windows, validation_split ", split, ")");
  std::vector<int64_t> held(starts.begin() + keep, starts.end());
  starts.resize(static_cast<size_t>(keep));
  const int64_t batch = data.get_int("batch_size", 32);
  const bool shuffle = data.get_bool("shuffle", true);
  if (shuffle) datasets::numpy_shuffle(starts, static_cast<uint32_t>(seed));
  datasets::Dataset train = datasets::timeseries_windows(c.x, c.y, o, std::move(starts));
  if (shuffle)
    train = train.shuffle(std::clamp<size_t>(static_cast<size_t>(keep), 1, kShuffleBuffer), seed);
  std::optional<datasets::Dataset> validation;
  if (!held.empty())
    validation = datasets::timeseries_windows(c.x, c.y, o, std::move(held)).batch(batch);
  return {train.batch(batch), validation, std::nullopt, facts_of(c.x, c.y)};
}

// Opening checks the files and names (a .npz member is read; the others only open).
void check_npy(const Config& args, const Config&) {
  (void)npy_columns(args);
}
void check_npz(const Config& args, const Config&) {
  (void)member_columns(args, "npz");
}
void check_hdf5(const Config& args, const Config&) {
  (void)member_columns(args, "hdf5");
}
void check_timeseries(const Config& args, const Config&) {
  const Columns c = timeseries_columns(args);
  located(args, [&] {
    return datasets::timeseries_starts(c.x->rows(), c.y ? std::optional(c.y->rows()) : std::nullopt,
                                       timeseries_options(args), c.x->name());
  });
}

}  // namespace

DataSource npy_source() {
  return {{"x", "y"}, check_npy, [](const Config& args, const Config& data, uint64_t seed) {
            return arrays_run(npy_columns(args), data, seed);
          }};
}

DataSource npz_source() {
  return {{"path", "x", "y"}, check_npz, [](const Config& args, const Config& data, uint64_t seed) {
            return arrays_run(member_columns(args, "npz"), data, seed);
          }};
}

DataSource hdf5_source() {
  return {
      {"path", "x", "y"}, check_hdf5, [](const Config& args, const Config& data, uint64_t seed) {
        return arrays_run(member_columns(args, "hdf5"), data, seed);
      }};
}

DataSource timeseries_source() {
  return {{"data", "targets", "sequence_length", "sequence_stride", "sampling_rate", "start_index",
           "end_index"},
          check_timeseries,
          timeseries};
}

}  // namespace kiln::configs
