#include "kiln/training/callbacks/callback.h"

#include "kiln/framework/core/error.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"

namespace kiln {

Model& Callback::model() const {
  KILN_CHECK(model_ != nullptr, "this callback is not attached to a model (pass it to fit)");
  return *model_;
}

void log_learning_rate(Model& model, Logs& logs) {
  logs["learning_rate"] = model.trainer().optimizer().learning_rate();
}

}  // namespace kiln
