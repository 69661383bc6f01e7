#include "engine/model/callbacks/callback.h"

#include "framework/core/error.h"

namespace kiln {

Model& Callback::model() const {
  KILN_CHECK(model_ != nullptr, "this callback is not attached to a model (pass it to fit)");
  return *model_;
}

}  // namespace kiln
