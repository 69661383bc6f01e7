#include "kiln/layers/trial_build.h"

#include <algorithm>

#include "kiln/layers/layer.h"

namespace kiln::layers {
namespace {

thread_local TrialBuild* innermost = nullptr;

}  // namespace

TrialBuild::TrialBuild() : outer_(innermost) {
  innermost = this;
}

TrialBuild::~TrialBuild() {
  innermost = outer_;
  // Last built first: a model after the layers its build built.
  for (auto it = built_.rbegin(); it != built_.rend(); ++it) it->layer->unbuild(it->weights);
}

TrialBuild* TrialBuild::active() {
  return innermost;
}

void TrialBuild::record(Layer& layer) {
  const bool recorded =
      std::any_of(built_.begin(), built_.end(), [&](const Built& b) { return b.layer == &layer; });
  if (!recorded) built_.push_back({&layer, layer.weights_.size()});
}

void TrialBuild::forget(const Layer& layer) {
  for (TrialBuild* trial = innermost; trial != nullptr; trial = trial->outer_)
    std::erase_if(trial->built_, [&](const Built& b) { return b.layer == &layer; });
}

}  // namespace kiln::layers
