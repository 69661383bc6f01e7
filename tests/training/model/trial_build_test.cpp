// A trial build checks a model on shapes and leaves nothing: its weights are symbolic (nothing
// drawn or allocated), and every layer it built is unbuilt when it ends, passed or failed, while
// layers built before it keep their weights.
#include "kiln/layers/trial_build.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/reshaping/reshape.h"
#include "kiln/training/model/sequential.h"
#include "tests/test_support/expect_error.h"

namespace kiln::layers {
namespace {

uint64_t draws() {
  return random::default_generator().draws();
}

TEST(TrialBuild, WeightsAreSymbolicAndGoWhenTheTrialEnds) {
  kiln::Sequential model(std::vector<LayerRef>{Dense(6), Reshape({3, 2})}, "undeclared");
  const uint64_t before = draws();
  {
    const TrialBuild trial;
    const std::vector<TensorMeta> out = model.compute_output_spec({{DType::f32, {4, 5}, {}}});
    EXPECT_EQ(out[0].shape, Shape({4, 3, 2}));
    ASSERT_TRUE(model.built());
    ASSERT_EQ(model.weights().size(), 2u);
    for (const Variable& w : model.weights()) EXPECT_TRUE(w.value().is_symbolic()) << w.name();
  }
  EXPECT_EQ(draws(), before);
  EXPECT_FALSE(model.built());
  EXPECT_TRUE(model.weights().empty());
  EXPECT_TRUE(model.input_specs().empty());
  for (const LayerPtr& layer : model.layers()) EXPECT_FALSE(layer->built()) << layer->name();
  // Built for real afterwards, on another input width: real values, drawn now.
  model.build_from({Shape({-1, 7})});
  EXPECT_EQ(model.weights()[0].shape(), Shape({7, 6}));
  EXPECT_FALSE(model.weights()[0].value().is_symbolic());
  EXPECT_GT(draws(), before);
}

TEST(TrialBuild, AFailedTrialLeavesNothingAndKeepsLayersBuiltBefore) {
  auto pretrained = std::make_shared<Dense>(6);
  pretrained->build_from({Shape({-1, 4})});
  const std::vector<double> kernel = pretrained->weights()[0].value().to_vector<double>();
  kiln::Sequential model(std::vector<LayerRef>{pretrained, Dense(4), Reshape({5})}, "around");
  const uint64_t before = draws();
  {
    const TrialBuild trial;
    const std::string message = testing::error_of([&] {
      (void)model.compute_output_spec({{DType::f32, {2, 4}, {}}});
    });
    EXPECT_NE(message.find("reshape"), std::string::npos) << message;
  }
  EXPECT_EQ(draws(), before);
  EXPECT_FALSE(model.built());
  EXPECT_FALSE(model.layers()[1]->built());
  EXPECT_TRUE(pretrained->built());
  EXPECT_EQ(pretrained->weights()[0].value().to_vector<double>(), kernel);
}

// A layer that makes a weight in its constructor keeps it; build()'s weight goes with the trial.
class ScaleAndShift : public Layer {
  KILN_LAYER_CLASS(ScaleAndShift)

 public:
  ScaleAndShift() { scale_ = add_weight("scale", {1}, initializers::ones()); }
  void build(const std::vector<Shape>& shapes) override {
    shift_ = add_weight("shift", {shapes[0].dim(-1)}, initializers::zeros());
  }
  std::vector<Tensor> call(const std::vector<Tensor>& in, const CallContext&) override {
    return {in[0] * read(scale_) + read(shift_)};
  }

 private:
  Variable scale_;
  Variable shift_;
};

TEST(TrialBuild, WeightsMadeBeforeBuildingStay) {
  ScaleAndShift layer;
  {
    const TrialBuild trial;
    (void)layer.compute_output_spec({{DType::f32, {2, 3}, {}}});
    EXPECT_EQ(layer.weights().size(), 2u);
  }
  ASSERT_EQ(layer.weights().size(), 1u);
  EXPECT_EQ(layer.weights()[0].name(), layer.name() + "/scale");
  EXPECT_FALSE(layer.weights()[0].value().is_symbolic());
}

// A layer built in a trial and destroyed before it ends (a temporary a subclassed model's call
// made) is forgotten, not unbuilt after it is gone: the sanitizer build (scripts/test --sanitize)
// reports the use after scope that unbuilding it would be.
TEST(TrialBuild, ALayerGoneBeforeTheTrialEndsIsForgotten) {
  const TrialBuild trial;
  {
    Dense temporary(4);
    (void)temporary.compute_output_spec({{DType::f32, {2, 3}, {}}});
    EXPECT_TRUE(temporary.built());
  }
}

TEST(TrialBuild, TrialsNestAndOutsideOneNothingIsRecorded) {
  EXPECT_EQ(TrialBuild::active(), nullptr);
  {
    const TrialBuild outer;
    EXPECT_EQ(TrialBuild::active(), &outer);
    {
      const TrialBuild inner;
      EXPECT_EQ(TrialBuild::active(), &inner);
    }
    EXPECT_EQ(TrialBuild::active(), &outer);
  }
  EXPECT_EQ(TrialBuild::active(), nullptr);
}

}  // namespace
}  // namespace kiln::layers
