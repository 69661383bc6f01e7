// The shared layer checks (layer_harness.h) over every case of layer_cases.cpp, and a check that
// every registered layer class has a case.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kiln/layers/registry.h"
#include "tests/layers/layer_harness.h"

namespace kiln::layers::testing {
namespace {

class LayerHarness : public ::testing::TestWithParam<LayerCase> {};

TEST_P(LayerHarness, OutputShapeAndDtypeMatchTheSpecWithUnknownBatch) {
  check_output_spec(GetParam());
}
TEST_P(LayerHarness, WeightCounts) {
  check_weights(GetParam());
}
TEST_P(LayerHarness, ConfigRoundTripsAndRebuildsTheSameLayer) {
  check_config_round_trip(GetParam());
}
TEST_P(LayerHarness, TrainingStepHasFiniteNonzeroGradients) {
  check_training_step(GetParam());
}
TEST_P(LayerHarness, TracedWithUnknownBatchEqualsEager) {
  check_traced_equals_eager(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Layers, LayerHarness, ::testing::ValuesIn(layer_cases()),
                         [](const ::testing::TestParamInfo<LayerCase>& param_info) {
                           return param_info.param.label;
                         });

TEST(LayerHarnessCoverage, EveryRegisteredLayerHasACase) {
  // Layers that read strings run on the host before the traced steps, so the harness's traced
  // and gradient checks do not apply: their own tests and the string-model tests check them.
  std::set<std::string> covered{"Hashing", "StringLookup", "TextVectorization"};
  for (const LayerCase& c : layer_cases()) covered.insert(c.make()->class_name());
  for (const std::string& name : known_layers())
    EXPECT_TRUE(covered.contains(name)) << "no harness case for layer class " << name;
}

}  // namespace
}  // namespace kiln::layers::testing
