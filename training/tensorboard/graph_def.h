#pragma once
// A traced step's engine graph as TensorFlow's GraphDef, which TensorBoard's graph dashboard
// draws: one node per op (named "<op>_<id>"; a variable read by the variable's path, so the
// dashboard groups a layer's weights under its name), edges from the inputs, each node's dtype
// and traced shape, kiln's op attributes as text, and the variable assignments and outputs as
// nodes of their own.
#include <string>

namespace kiln::engine {
struct Graph;
}

namespace kiln::tensorboard {

// The serialized GraphDef.
std::string graph_def(const engine::Graph& graph);

}  // namespace kiln::tensorboard
