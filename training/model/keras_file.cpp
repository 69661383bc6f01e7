#include "kiln/training/model/keras_file.h"

#include <chrono>
#include <ctime>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"
#include "kiln/layers/registry.h"
#include "kiln/training/model/compile_config.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"
#include "kiln/training/saving/h5_file.h"
#include "kiln/training/saving/keras_archive.h"
#include "kiln/training/saving/variable_groups.h"
#include "kiln/training/saving/weights_file.h"

namespace kiln {
namespace {

constexpr const char* kMetadata = "metadata.json";
constexpr const char* kConfig = "config.json";
constexpr const char* kWeights = "model.weights.h5";

// "2026-11-26@11:58:48", as Keras dates its files (local time).
std::string date_saved() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d@%H:%M:%S", &local);
  return text;
}

Config model_config(const Model& model, const std::string& path) {
  Config config;
  try {
    config = layers::serialize_layer(model);
  } catch (const Error& e) {
    throw Error(detail::concat("cannot save model '", model.name(), "' to ", path, ": ", e.what(),
                               " (a subclassed model has no Keras config; keep its weights with "
                               "save_weights)"));
  }
  // Keras builds a loaded Sequential from this when its layers hold no InputLayer.
  const Config* shape = config["config"].find("build_input_shape");
  config.set("build_config",
             Config::map().set("input_shape", shape != nullptr ? *shape : Config()));
  if (model.compiled()) config.set("compile_config", compile_config(model));
  return config;
}

std::string weights_image(const Model& model, const std::string& path) {
  const saving::H5File file = saving::H5File::create_in_memory(path + ":" + kWeights);
  saving::H5Group root = file.root();
  saving::write_weights(model.saved_weights(), root);
  if (model.compiled()) {
    const layers::WeightGroup optimizer = model.optimizer_weights();
    if (!optimizer.variables.empty()) saving::write_groups(root, {optimizer});
  }
  return file.image();
}

// The optimizer's state, when the file has some and it fits the optimizer built for this
// model's variables. As Keras, state that does not fit (a file saved before training built the
// slots) is skipped with a warning: the model still loads, with a fresh optimizer.
void restore_optimizer(Model& model, const saving::H5Group& root) {
  if (!root.has_group("optimizer/vars")) return;
  optimizers::Optimizer& optimizer = model.trainer().optimizer();
  {
    const DeviceScope scope(model.device());
    optimizer.build(model.trainable_weights());
  }
  const layers::WeightGroup group = model.optimizer_weights();
  const size_t stored = root.open_group("optimizer/vars").children().size();
  if (stored != group.variables.size()) {
    log(LogLevel::warning, root.where(), ": skipping the optimizer's state: '",
        optimizer.class_name(), "' has ", group.variables.size(), " variables for model '",
        model.name(), "' but the file holds ", stored);
    return;
  }
  saving::assign_all(saving::stage_groups(root, {group}, "optimizer state for"));
}

// "assets/<group path>/": where a group's asset files sit in the archive, as Keras's DiskIOStore
// puts them.
std::string assets_folder(const layers::WeightGroup& group) {
  return group.path.empty() ? "assets/" : "assets/" + group.path + "/";
}

std::vector<saving::ArchiveEntry> asset_entries(const Model& model) {
  std::vector<saving::ArchiveEntry> entries;
  for (const layers::WeightGroup& group : model.saved_weights().groups)
    if (group.save_assets)
      for (auto& [file, bytes] : group.save_assets())
        entries.push_back({assets_folder(group) + file, std::move(bytes)});
  return entries;
}

void load_assets(Model& model, const std::vector<saving::ArchiveEntry>& entries) {
  for (const layers::WeightGroup& group : model.saved_weights().groups) {
    if (!group.load_assets) continue;
    const std::string folder = assets_folder(group);
    layers::AssetFiles files;
    for (const saving::ArchiveEntry& e : entries)
      if (e.name.starts_with(folder) && e.name.find('/', folder.size()) == std::string::npos)
        files.emplace(e.name.substr(folder.size()), e.bytes);
    group.load_assets(files);
  }
}

std::shared_ptr<Model> model_from_config(const Config& config, const std::string& path) {
  layers::LayerPtr layer;
  try {
    layer = layers::deserialize_layer(config);
  } catch (const Error& e) {
    throw Error(detail::concat(path, ": ", e.what()));
  }
  auto model = std::dynamic_pointer_cast<Model>(layer);
  KILN_CHECK(model != nullptr, path, ": its config describes a ", layer->class_name(),
             " layer, not a model");
  return model;
}

}  // namespace

void save_model(const Model& model, const std::string& path) {
  KILN_CHECK(path.ends_with(".keras"), "model.save('", path,
             "'): the file name must end in .keras (weights alone: save_weights to a "
             ".weights.h5)");
  const std::string config = model_config(model, path).to_json();
  const std::string metadata = Config::map()
                                   .set("keras_version", kKerasFormatVersion)
                                   .set("date_saved", date_saved())
                                   .to_json();
  std::vector<saving::ArchiveEntry> entries{
      {kMetadata, metadata}, {kConfig, config}, {kWeights, weights_image(model, path)}};
  for (saving::ArchiveEntry& asset : asset_entries(model)) entries.push_back(std::move(asset));
  saving::write_zip_archive(path, entries);
}

std::shared_ptr<Model> load_model(const std::string& path, const LoadModelOptions& options) {
  const std::vector<saving::ArchiveEntry> entries = saving::read_zip_archive(path);
  Config config = Config::from_json(saving::archive_entry(entries, kConfig, path));
  config.set_origin(path + ":" + kConfig);
  std::shared_ptr<Model> model = model_from_config(config, path);
  const Config* compile = config.find("compile_config");
  const bool compiled =
      options.compile && compile != nullptr && compile->is_map() && !compile->as_map().empty();
  if (compiled) {
    CompileOptions compile_options = compile_options_from_config(*compile);
    if (options.adjust_compile) options.adjust_compile(compile_options);
    model->compile(std::move(compile_options));
  }
  const saving::H5File weights = saving::H5File::open_image(
      saving::archive_entry(entries, kWeights, path), path + ":" + kWeights);
  saving::read_weights(model->saved_weights(), weights.root());
  load_assets(*model, entries);
  if (compiled) restore_optimizer(*model, weights.root());
  return model;
}

}  // namespace kiln
