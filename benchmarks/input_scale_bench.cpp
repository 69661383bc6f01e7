// Inputs of a size users can write, in time linear in their size: a Sequential built layer by
// layer (Sequential::add builds only the new layer), and run files and .keras configs of many
// keys (YAML and JSON maps find repeated keys by hash). Each size against a tenth of it: the
// ratio is 10 for linear work and 100 for quadratic.
#include <benchmark/benchmark.h>

#include <string>

#include "kiln/configs/yaml_config.h"
#include "kiln/framework/core/config.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

void BM_SequentialAddLayers(benchmark::State& state) {
  const auto layers = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Sequential model;
    model.add(layers::Input({4}));
    for (int i = 0; i < layers; ++i) model.add(layers::Dense(4));
    benchmark::DoNotOptimize(model.weights().size());
  }
}
BENCHMARK(BM_SequentialAddLayers)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

std::string yaml_keys(int keys) {
  std::string text;
  for (int i = 0; i < keys; ++i)
    text.append("key")
        .append(std::to_string(i))
        .append(": ")
        .append(std::to_string(i))
        .append("\n");
  return text;
}

std::string json_keys(int keys) {
  std::string text = "{";
  for (int i = 0; i < keys; ++i)
    text.append(i ? ", \"key" : "\"key")
        .append(std::to_string(i))
        .append("\": ")
        .append(std::to_string(i));
  return text + "}";
}

void BM_ParseYamlKeys(benchmark::State& state) {
  const std::string text = yaml_keys(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(configs::parse_yaml(text, "keys.yaml").size());
}
BENCHMARK(BM_ParseYamlKeys)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ParseJsonKeys(benchmark::State& state) {
  const std::string text = json_keys(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(Config::from_json(text).size());
}
BENCHMARK(BM_ParseJsonKeys)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kiln

BENCHMARK_MAIN();
