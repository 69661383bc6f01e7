// Dataset::prefetch to a device, on the stand-in CUDA device (tests/devices/host_cuda.h): the
// elements arrive there (strings stay on the host), and a fit from such a pipeline trains exactly
// as one from host batches, its batches already where the model is.
#include <gtest/gtest.h>

#include "kiln/datasets/dataset.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "tests/devices/host_cuda.h"
#include "tests/devices/reference_fits.h"

namespace kiln::testing {
namespace {

const Device kGpu = Device::cuda(0);

TEST(PrefetchToDevice, MovesEveryNumericComponentAndKeepsStringsOnTheHost) {
  const datasets::Dataset data =
      datasets::Dataset::from_tensor_slices(
          {from_vector<float>({1, 2, 3, 4}, {2, 2}), strings(std::vector<std::string>{"a", "b"})})
          .prefetch(2, kGpu);
  int64_t elements = 0;
  for (const datasets::Element& e : data) {
    EXPECT_EQ(e[0].device(), kGpu);
    EXPECT_EQ(e[1].device(), Device::cpu());
    ++elements;
  }
  EXPECT_EQ(elements, 2);
}

TEST(PrefetchToDevice, AFitFromItEqualsAFitFromHostBatches) {
  for (const ReferenceModel which : {ReferenceModel::mlp, ReferenceModel::cnn}) {
    SCOPED_TRACE(to_string(which));
    const FitRecord host = reference_fit(which, "cuda:0");
    std::unique_ptr<Model> model = reference_model(which, "cuda:0");
    std::vector<double> losses;
    auto record = std::make_shared<LambdaCallback>(
        LambdaCallbackHooks{.on_train_batch_end = [&](int64_t, const Logs& logs) {
          losses.push_back(logs.at("loss"));
        }});
    model->fit(reference_data(which).prefetch(2, kGpu),
               {.epochs = 1, .verbose = 0, .callbacks = {record}});
    expect_same_fit({losses, model->get_weights(), model->device()}, host, 0);
  }
}

}  // namespace
}  // namespace kiln::testing
