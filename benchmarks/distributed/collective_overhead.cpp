// What the data-parallel path costs a step when there is nothing to gain from it: the
// Fashion-MNIST CNN's traced train step on one device, with and without the gradient all-reduce
// (buckets, all_reduce_start / all_reduce_wait) through a one-rank communicator: NCCL on a GPU,
// the local one on the CPU. The two steps alternate, `rounds` rounds of `steps` steps each; prints
// both medians and their ratio (the target on a GPU: at most 1.05).
//   collective_overhead [--device cuda:0] [--steps 100] [--rounds 5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/distributed/nccl.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/pooling/pooling.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/layers/reshaping/reshape.h"
#include "kiln/losses/losses.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/distribute/gradient_buckets.h"
#include "kiln/training/distribute/strategy.h"
#include "kiln/training/model/sequential.h"

using namespace kiln;

int main(int argc, char** argv) {
  std::string device_name = cuda_available() ? "cuda:0" : "cpu";
  int64_t steps = 100;
  int rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--device") device_name = argv[i + 1];
    if (key == "--steps") steps = std::atoll(argv[i + 1]);
    if (key == "--rounds") rounds = std::atoi(argv[i + 1]);
  }
  set_log_level(LogLevel::warning);
  const Device device = Device::parse(device_name);
  const DeviceScope scope(device);
  distributed::set_world(device.is_cuda()
                             ? distributed::nccl_world(
                                   std::make_shared<distributed::LocalCommunicator>(), device.index)
                             : nullptr);

  random::set_seed(7);
  Sequential model({layers::Input({28, 28}), layers::Reshape(Shape({28, 28, 1})),
                    layers::Conv2D(32, {3, 3}, {.activation = "relu"}), layers::MaxPooling2D(),
                    layers::Conv2D(64, {3, 3}, {.activation = "relu"}), layers::MaxPooling2D(),
                    layers::Flatten(), layers::Dense(128, {.activation = "relu"}),
                    layers::Dense(10)});
  for (const Variable& v : model.weights()) v.move_to(device);
  const optimizers::OptimizerPtr optimizer = optimizers::get("adam");
  optimizer->build(model.trainable_weights());
  const losses::SparseCategoricalCrossentropy loss_fn({.from_logits = true});

  random::Generator gen(3);
  const Tensor x = random::uniform({128, 28, 28}, 0, 1, DType::f32, gen, Device::cpu()).to(device);
  const Tensor y =
      ops::cast(random::uniform({128}, 0, 10, DType::f32, gen, Device::cpu()), DType::i64)
          .to(device);
  // One train step, its gradients summed over the (one) rank or not.
  const auto step_with = [&](bool reduce) {
    return function(
        [&, reduce](const Tensor& images, const Tensor& labels) {
          const std::vector<Variable> variables = model.trainable_weights();
          auto [loss, grads] = value_and_grad(
              [&] {
                const Tensor logits =
                    model({images}, layers::CallContext{.training = true, .masks = {}})[0];
                return loss_fn(labels, logits, Tensor(), Tensor());
              },
              variables);
          if (reduce)
            grads = distribute::all_reduce_gradients(grads, distribute::kDefaultBucketBytes,
                                                     ops::greater(ops::size_of(labels, {0}), 0.0));
          optimizer->apply_gradients(grads, variables);
          return loss;
        },
        {.name = reduce ? "step_with_all_reduce" : "step"});
  };
  auto plain = step_with(false);
  auto reduced = step_with(true);
  // Each timed round ends with the loss on the host: a GPU's queued work is done.
  const auto run = [&](auto& step) {
    const auto start = std::chrono::steady_clock::now();
    Tensor loss;
    for (int64_t s = 0; s < steps; ++s) loss = step(x, y);
    (void)loss.to(Device::cpu()).item<float>();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  run(plain);  // traces and warms up
  run(reduced);
  std::vector<double> off, on;
  for (int r = 0; r < rounds; ++r) {
    off.push_back(run(plain));
    on.push_back(run(reduced));
  }
  std::sort(off.begin(), off.end());
  std::sort(on.begin(), on.end());
  const double a = off[off.size() / 2] / static_cast<double>(steps);
  const double b = on[on.size() / 2] / static_cast<double>(steps);
  std::printf("%s (%s): ms/step %.3f without the all-reduce, %.3f with it: %.3fx\n",
              device.to_string().c_str(), std::string(distributed::world().backend()).c_str(),
              1000 * a, 1000 * b, b / a);
  distributed::set_world(nullptr);
  return 0;
}
