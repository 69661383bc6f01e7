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
  for (auto it = built_.rbegin(); it != built_.rend(); ++it) (*it)->unbuild();
}

TrialBuild* TrialBuild::active() {
  return innermost;
}

void TrialBuild::record(Layer& layer) {
  if (std::find(built_.begin(), built_.end(), &layer) == built_.end()) built_.push_back(&layer);
}

}  // namespace kiln::layers
