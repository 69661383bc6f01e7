// A functional model with two inputs and a shared layer: each Fashion-MNIST image is read as
// 28 rows and as 28 columns (the transposed image); one Conv1D, shared by both views, finds
// strokes along each, and the two pooled views are concatenated and classified.
#include <cstdio>

#include "apps/examples/example_support.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/merge/concatenate.h"
#include "kiln/layers/pooling/global_pooling.h"

using namespace kiln;
using layers::Dense;

int main(int argc, char** argv) {
  return examples::run_example(argc, argv, {}, [](const examples::ExampleOptions& o) {
    const datasets::FashionMnist data = examples::load_data(o);
    const auto columns = [](const Tensor& images) { return ops::transpose(images, {0, 2, 1}); };

    const layers::KerasTensor rows_in = layers::Input({28, 28}, DType::f32, "rows");
    const layers::KerasTensor columns_in = layers::Input({28, 28}, DType::f32, "columns");
    // One layer, two calls: both views train the same kernel.
    auto strokes =
        layers::share(layers::Conv1D(64, {3}, {.activation = "relu", .name = "strokes"}));
    const layers::KerasTensor rows = layers::GlobalMaxPooling1D()((*strokes)(rows_in));
    const layers::KerasTensor cols = layers::GlobalMaxPooling1D()((*strokes)(columns_in));
    const layers::KerasTensor both = layers::Concatenate()(std::vector{rows, cols})[0];
    const layers::KerasTensor hidden = Dense(128, {.activation = "relu"})(both);
    Model model({rows_in, columns_in}, {Dense(10)(hidden)}, "two_views");
    std::printf("%s", model.summary().c_str());

    model.compile(examples::classifier_options(o));
    return examples::fit_and_report(
        model, {data.train.images, columns(data.train.images)}, data.train.labels,
        {data.test.images, columns(data.test.images)}, data.test.labels, o);
  });
}
