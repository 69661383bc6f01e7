// A downstream program on an installed kiln: a Keras-style regression, trained.
#include <kiln/framework/ops/ops.h>
#include <kiln/framework/random/random.h>
#include <kiln/layers/core/dense.h>
#include <kiln/layers/core/input_layer.h>
#include <kiln/training/model/sequential.h>

#include <cstdio>

int main() {
  using namespace kiln;
  random::Generator gen(0);
  const Tensor x = random::uniform({256, 3}, -1, 1, DType::f32, gen);
  const Tensor y = ops::sum(x, {1}, true);
  Sequential model(
      {layers::Input({3}), layers::Dense(8, {.activation = "relu"}), layers::Dense(1)});
  model.compile({.optimizer = "adam", .loss = "mse"});
  const std::vector<double> loss =
      model.fit(x, y, {.batch_size = 32, .epochs = 20, .verbose = 0}).history.at("loss");
  std::printf("loss %.4f -> %.4f\n", loss.front(), loss.back());
  return loss.back() < loss.front() / 2 ? 0 : 1;
}
