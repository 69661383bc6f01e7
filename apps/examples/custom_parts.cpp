// A custom layer, a custom loss and a custom activation, each registered by name with one line
// and then used exactly like the built-ins: by name in compile and in layer arguments, and
// through the layer registry when a model is rebuilt from its config (as YAML runs and
// checkpoints do).
#include <cstdio>

#include "apps/examples/custom_parts.h"
#include "apps/examples/example_support.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/registry.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/training/model/sequential.h"

using namespace kiln;
using examples::ResidualDense;

int main(int argc, char** argv) {
  examples::register_custom_parts();

  return examples::run_example(argc, argv, {}, [](const examples::ExampleOptions& o) {
    const datasets::FashionMnist data = examples::load_data(o);
    Sequential model({layers::Input({28, 28}), layers::Flatten(),
                      layers::Dense(256, {.activation = "squareplus"}), ResidualDense("squareplus"),
                      layers::Dense(10)});
    std::printf("%s", model.summary().c_str());

    // Rebuilt from its config, the model finds ResidualDense and squareplus by name.
    const layers::LayerPtr rebuilt = layers::deserialize_layer(layers::serialize_layer(model));
    std::printf("rebuilt from config: %s with %lld parameters\n", rebuilt->name().c_str(),
                static_cast<long long>(rebuilt->count_params()));

    CompileOptions options = examples::classifier_options(o);
    options.loss = "sparse_focal_crossentropy";
    model.compile(std::move(options));
    return examples::fit_and_report(model, {data.train.images}, data.train.labels,
                                    {data.test.images}, data.test.labels, o);
  });
}
