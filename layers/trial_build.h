#pragma once
// The first phase of preparing a model for a call: its checks on shapes alone. A model not yet
// built must build to run on symbolic inputs; inside a TrialBuild, layers build on symbolic
// weights (Variable::symbolic: nothing drawn from the random generator, nothing allocated), and
// every layer the trial built is unbuilt again when it ends, whether the checks passed or not.
// The call builds for real only after all its checks passed, so a refused call leaves no weights,
// draws or half-built layers behind, and layers built before (pretrained, shared) are untouched.
// A layer that reads a weight's values in call() or assigns one in build() cannot be checked on
// symbolic weights: its trial fails with the symbolic read named (no built-in layer does either).
#include <cstddef>
#include <vector>

namespace kiln::layers {

class Layer;

class TrialBuild {
 public:
  TrialBuild();
  ~TrialBuild();
  TrialBuild(const TrialBuild&) = delete;
  TrialBuild& operator=(const TrialBuild&) = delete;

  // The innermost trial on this thread, or null outside one.
  static TrialBuild* active();
  // `layer` is building inside this trial (Layer::build_from): unbuilt when the trial ends.
  void record(Layer& layer);
  // `layer` is going away (~Layer): no trial on this thread unbuilds it (a temporary layer a
  // subclassed model's call built and dropped).
  static void forget(const Layer& layer);

 private:
  struct Built {
    Layer* layer;
    size_t weights;  // the layer's weights before it built (its constructor's), kept
  };
  std::vector<Built> built_;
  TrialBuild* outer_;
};

}  // namespace kiln::layers
