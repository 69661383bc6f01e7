// libFuzzer target for the weight-file and checkpoint loaders. The input is a list of edits to a
// well-formed HDF5 file (a full kiln checkpoint of this target's model, its .weights.h5, or an
// empty file): datasets removed, or written under known or new names with any dtype, shape and
// bytes; string attributes (configs, layer and weight names) replaced by arbitrary text or by
// their own text with a piece changed. Inspecting and loading the result may fail with
// kiln::Error, never crash; a failed load leaves the model's weights as they were.
//
// The edits go through libhdf5, so its own parser never sees corrupt bytes: libhdf5 1.10.8 (the
// Debian package) hangs and crashes on corrupt global heaps, a library bug kiln cannot fix.
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/summary.h"
#include "kiln/training/saving/checkpoint.h"
#include "kiln/training/saving/inspect.h"

namespace {

kiln::Sequential& model() {
  static kiln::Sequential m = [] {
    kiln::Sequential s({kiln::layers::Input({6}), kiln::layers::Dense(8),
                        kiln::layers::Dropout(0.5), kiln::layers::Dense(3)});
    s.compile({.optimizer = "adam", .loss = "mse"});
    s.train_on_batch({kiln::ones({4, 6})}, {kiln::ones({4, 3})});  // the optimizer's slots
    return s;
  }();
  return m;
}

// Names the loaders look for (kiln checkpoints, Keras 3 and legacy Keras files), so edits hit
// them often; other names come from the input.
const std::vector<std::string> kDatasets = {"layers/dense/vars/0",
                                            "layers/dense/vars/1",
                                            "layers/dense_1/vars/0",
                                            "layers/dense_1/vars/1",
                                            "layers/dropout/vars/0",
                                            "optimizer/vars/0",
                                            "optimizer/vars/1",
                                            "optimizer/vars/2",
                                            "optimizer/vars/9",
                                            "optimizer/vars/10",
                                            "kiln/epoch",
                                            "kiln/step",
                                            "kiln/generator",
                                            "kiln/random_states/vars/0",
                                            "model_weights/dense/dense/kernel:0",
                                            "model_weights/dense/dense/bias:0"};
const std::vector<std::pair<std::string, std::string>> kAttributes = {
    {"kiln", "model_config"},      {"kiln", "run_config"},
    {"layers/dense/vars", "name"}, {"optimizer/vars", "name"},
    {"/", "layer_names"},          {"model_weights", "layer_names"},
    {"/", "keras_version"},        {"model_weights/dense", "weight_names"}};

template <typename T>
const T& one_of(FuzzedDataProvider& p, const std::vector<T>& values) {
  return values[p.ConsumeIntegralInRange<size_t>(0, values.size() - 1)];
}

std::string pick(FuzzedDataProvider& p, const std::vector<std::string>& known) {
  if (p.ConsumeBool()) return one_of(p, known);
  return p.ConsumeRandomLengthString(24);
}

// Creates the groups on the way to `path` (all but its last part).
void make_parents(hid_t file, const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string group = path.substr(0, slash);
    if (H5Lexists(file, group.c_str(), H5P_DEFAULT) > 0) continue;
    const hid_t g = H5Gcreate2(file, group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0) H5Gclose(g);
  }
}

void write_dataset(FuzzedDataProvider& p, hid_t file, const std::string& path) {
  static const hid_t* const types[] = {&H5T_NATIVE_FLOAT_g, &H5T_NATIVE_DOUBLE_g,
                                       &H5T_NATIVE_INT32_g, &H5T_NATIVE_INT64_g,
                                       &H5T_NATIVE_UINT8_g, &H5T_NATIVE_INT8_g};
  const hid_t type = *types[p.ConsumeIntegralInRange<size_t>(0, 5)];
  const int rank = p.ConsumeIntegralInRange(0, 3);
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  size_t count = 1;
  for (hsize_t& d : dims) {
    d = p.PickValueInArray({0, 1, 2, 3, 6, 8, 9, 40});
    count *= d;
  }
  std::vector<uint8_t> bytes = p.ConsumeBytes<uint8_t>(count * H5Tget_size(type));
  bytes.resize(count * H5Tget_size(type));
  if (H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0) H5Ldelete(file, path.c_str(), H5P_DEFAULT);
  make_parents(file, path);
  const hid_t space =
      rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims.data(), nullptr);
  const hid_t set =
      H5Dcreate2(file, path.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (set >= 0) {
    if (count > 0) H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    H5Dclose(set);
  }
  H5Sclose(space);
}

// The attribute's current text (variable-length string attributes, as kiln writes them), or "".
std::string read_text(hid_t object, const char* name) {
  if (H5Aexists(object, name) <= 0) return "";
  const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(attr);
  std::string text;
  char* value = nullptr;
  if (H5Tis_variable_str(type) > 0 && H5Aread(attr, type, &value) >= 0 && value != nullptr) {
    text = value;
    H5free_memory(value);
  }
  H5Tclose(type);
  H5Aclose(attr);
  return text;
}

// One string (variable length, as h5py) or a list (fixed length, as the legacy Keras writer).
void write_strings(hid_t object, const char* name, const std::vector<std::string>& values,
                   bool list) {
  if (H5Aexists(object, name) > 0) H5Adelete(object, name);
  const hid_t type = H5Tcopy(H5T_C_S1);
  hid_t space;
  if (list) {
    size_t longest = 1;
    for (const std::string& v : values) longest = std::max(longest, v.size());
    std::string packed;
    for (const std::string& v : values) packed += v + std::string(longest - v.size(), '\0');
    H5Tset_size(type, longest);
    const hsize_t n = values.size();
    space = H5Screate_simple(1, &n, nullptr);
    const hid_t attr = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) {
      if (n > 0) H5Awrite(attr, type, packed.data());
      H5Aclose(attr);
    }
  } else {
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    space = H5Screate(H5S_SCALAR);
    const char* text = values.front().c_str();
    const hid_t attr = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) {
      H5Awrite(attr, type, &text);
      H5Aclose(attr);
    }
  }
  H5Sclose(space);
  H5Tclose(type);
}

void edit_attribute(FuzzedDataProvider& p, hid_t file) {
  const auto& [where, name] = one_of(p, kAttributes);
  make_parents(file, where == "/" ? "/" : "/" + where + "/x");
  const hid_t object = H5Oopen(file, where.c_str(), H5P_DEFAULT);
  if (object < 0) return;
  if (p.ConsumeBool()) {
    std::vector<std::string> values(p.ConsumeIntegralInRange(0, 4));
    for (std::string& v : values)
      v = pick(p, {"dense", "dense_1", "dropout", "kernel:0", "bias:0"});
    write_strings(object, name.c_str(), values, true);
  } else {
    // Half the time the attribute's own text (a JSON config) with one piece replaced.
    std::string text = read_text(object, name.c_str());
    const std::string piece = p.ConsumeRandomLengthString(64);
    if (text.empty() || p.ConsumeBool()) {
      text = piece;
    } else {
      const size_t at = p.ConsumeIntegralInRange<size_t>(0, text.size());
      const size_t len = p.ConsumeIntegralInRange<size_t>(0, text.size() - at);
      text.replace(at, len, piece);
    }
    write_strings(object, name.c_str(), {text}, false);
  }
  H5Oclose(object);
}

// A writable copy of `seed` at `path`.
hid_t open_copy(const std::string& seed, const std::string& path) {
  std::filesystem::copy_file(seed, path, std::filesystem::copy_options::overwrite_existing);
  return H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
}

// The starting file, edited as the input says; false when libhdf5 refused to open it.
bool make_file(FuzzedDataProvider& p, const std::string& path, const std::string& base) {
  const int start = p.ConsumeIntegralInRange(0, 2);
  hid_t file;
  if (start == 2) {
    file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  } else {
    const std::string seed = start == 0 ? base + ".h5" : base + ".weights.h5";
    file = open_copy(seed, path);
  }
  if (file < 0) return false;
  const int edits = p.ConsumeIntegralInRange(0, 12);
  for (int k = 0; k < edits && p.remaining_bytes() > 0; ++k) {
    switch (p.ConsumeIntegralInRange(0, 2)) {
      case 0: {
        const std::string name = pick(p, kDatasets);
        if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0)
          H5Ldelete(file, name.c_str(), H5P_DEFAULT);
        break;
      }
      case 1:
        write_dataset(p, file, pick(p, kDatasets));
        break;
      default:
        edit_attribute(p, file);
        break;
    }
  }
  H5Fclose(file);
  return true;
}

std::vector<std::vector<float>> values(const std::vector<kiln::Tensor>& tensors) {
  std::vector<std::vector<float>> out;
  for (const kiln::Tensor& t : tensors) out.push_back(t.to_vector<float>());
  return out;
}

// Runs a load; if it fails, the model's weights must be what they were.
template <typename Load>
void load_or_change_nothing(Load load) {
  const auto before = values(model().get_weights());
  try {
    load();
  } catch (const kiln::Error&) {
    if (values(model().get_weights()) != before) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string base = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const std::string b = "/tmp/kiln_checkpoint_fuzz_seed_" + std::to_string(getpid());
    kiln::saving::save_checkpoint(model().checkpoint_contents(), b + ".h5", {3, 7});
    model().save_weights(b + ".weights.h5");
    return b;
  }();
  static const std::string path = "/tmp/kiln_checkpoint_fuzz_" + std::to_string(getpid()) + ".h5";
  FuzzedDataProvider p(data, size);
  if (!make_file(p, path, base)) return 0;
  try {
    kiln::saving::describe_file(path, kiln::summary_of_config);
  } catch (const kiln::Error&) {
  }
  try {
    kiln::saving::read_checkpoint_info(path);
  } catch (const kiln::Error&) {
  }
  load_or_change_nothing([&] { model().load_weights(path); });
  load_or_change_nothing(
      [&] { kiln::saving::load_checkpoint(model().checkpoint_contents(), path); });
  return 0;
}
