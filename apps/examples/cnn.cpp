// Fashion-MNIST with a small convolutional network (Conv32-Pool-Conv64-Pool-Dense128), the
// classic Keras example: images reshaped to [28, 28, 1], 3x3 convolutions, 2x2 max pooling.
#include <cstdio>

#include "apps/examples/example_support.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/pooling/pooling.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/layers/reshaping/reshape.h"
#include "kiln/training/model/sequential.h"

using namespace kiln;
using layers::Conv2D;
using layers::Dense;
using layers::MaxPooling2D;

int main(int argc, char** argv) {
  return examples::run_example(argc, argv, {}, [](const examples::ExampleOptions& o) {
    const datasets::FashionMnist data = examples::load_data(o);
    Sequential model({layers::Input({28, 28}), layers::Reshape({28, 28, 1}),
                      Conv2D(32, {3}, {.activation = "relu"}), MaxPooling2D(),
                      Conv2D(64, {3}, {.activation = "relu"}), MaxPooling2D(), layers::Flatten(),
                      Dense(128, {.activation = "relu"}), Dense(10)});
    std::printf("%s", model.summary().c_str());
    model.compile(examples::classifier_options(o));
    return examples::fit_and_report(model, {data.train.images}, data.train.labels,
                                    {data.test.images}, data.test.labels, o);
  });
}
