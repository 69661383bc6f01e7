#pragma once
// Keras's layer.adapt(data) for every layer of a model that needs it (a Normalization given no
// statistics), fed what reaches that layer: the data's inputs run through the layers before it,
// at inference. A run file does this on its training split before the first epoch.
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/training/model/model.h"

namespace kiln {

// Adapts each such layer in one pass over `data` (batches whose first components are the
// model's inputs), in the model's layer order, so a later layer sees the earlier ones adapted.
// Returns the adapted layers' names. A layer a subclassed model calls in its own code cannot be
// reached this way and is refused, naming it.
std::vector<std::string> adapt_layers(Model& model, const datasets::Dataset& data);

}  // namespace kiln
