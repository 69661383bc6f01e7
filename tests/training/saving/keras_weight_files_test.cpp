// Weight files both ways with Keras (files in data/, written by Keras 3 through
// scripts/golden/generate_keras_weight_files.py): kiln rebuilds each model from the config Keras
// stored, loads Keras's .weights.h5 and legacy .h5 and computes Keras's predictions; and the file
// kiln saves for that model has Keras's layout, dataset for dataset, so Keras loads it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kiln/layers/registry.h"
#include "kiln/training/model/model.h"
#include "kiln/training/saving/h5_file.h"
#include "tests/training/saving/keras_fixtures.h"

namespace kiln::saving {
namespace {

using testing_fixtures::expect_near;
using testing_fixtures::kData;
using testing_fixtures::Predictions;
using testing_fixtures::read_predictions;

struct Expected {
  Config model_config;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

Expected expected(const std::string& name) {
  const H5Group root = H5File::open(kData + name + ".expected.h5").root();
  Predictions p = read_predictions(root);
  return {Config::from_json(root.attr_string("model_config")), std::move(p.inputs),
          std::move(p.outputs)};
}

std::shared_ptr<Model> rebuild(const Config& config) {
  layers::reset_names();
  auto model = std::dynamic_pointer_cast<Model>(layers::deserialize_layer(config));
  EXPECT_NE(model, nullptr);
  return model;
}

// Every dataset below `group` (path -> shape), the optimizer's excepted.
void datasets(const H5Group& group, const std::string& prefix, std::map<std::string, Shape>& out) {
  for (const std::string& child : group.children()) {
    const std::string path = prefix.empty() ? child : prefix + "/" + child;
    if (path == "optimizer") continue;
    if (group.has_group(child))
      datasets(group.open_group(child), path, out);
    else
      out[path] = group.info(child).shape;
  }
}

void expect_outputs(Model& model, const Expected& e, const std::string& what) {
  expect_near(model(e.inputs, {}), e.outputs, what);
}

class KerasWeightFiles : public testing::TestWithParam<std::string> {};

TEST_P(KerasWeightFiles, KilnLoadsKerasFilesAndPredictsAsKeras) {
  const Expected e = expected(GetParam());
  for (const std::string kind : {".weights.h5", ".legacy.h5"}) {
    std::shared_ptr<Model> model = rebuild(e.model_config);
    model->load_weights(kData + GetParam() + kind);
    expect_outputs(*model, e, GetParam() + kind);
  }
}

TEST_P(KerasWeightFiles, KilnWritesKerasLayout) {
  const Expected e = expected(GetParam());
  std::shared_ptr<Model> model = rebuild(e.model_config);
  model->load_weights(kData + GetParam() + ".weights.h5");
  // KILN_KEEP_WEIGHT_FILES=dir keeps kiln's files there for
  // scripts/golden/check_keras_loads_kiln_weights.py, which has Keras load them.
  const char* keep = std::getenv("KILN_KEEP_WEIGHT_FILES");
  const std::filesystem::path dir = keep ? keep : std::filesystem::temp_directory_path();
  const std::string path = (dir / ("kiln_" + GetParam() + ".weights.h5")).string();
  model->save_weights(path);
  std::map<std::string, Shape> keras, kiln;
  datasets(H5File::open(kData + GetParam() + ".weights.h5").root(), "", keras);
  datasets(H5File::open(path).root(), "", kiln);
  EXPECT_EQ(kiln, keras);
  // And the values are Keras's, read back.
  std::shared_ptr<Model> again = rebuild(e.model_config);
  again->load_weights(path);
  expect_outputs(*again, e, "kiln's own file");
  if (keep == nullptr) std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Models, KerasWeightFiles,
                         testing::Values("mlp", "cnn", "recurrent", "attention"));

}  // namespace
}  // namespace kiln::saving
