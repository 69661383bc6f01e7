#pragma once
// The `model` section of a run file, as a Sequential or a functional model. Layer types and
// arguments are Keras's (custom layers registered in C++ by name work the same way):
//
//   model:                               model:
//     name: mlp                            inputs:
//     input: {shape: [28, 28]}               image: {shape: [28, 28]}
//     layers:                              layers:
//       - Flatten: {}                          - {Flatten: {}, name: flat, inputs: image}
//       - Dense: {units: 128,                  - {Dense: {units: 10}, name: out, inputs: flat}
//                 activation: relu}          outputs: [out]
//       - Dense: {units: 10}
//
// A model with named `inputs` and `outputs` is functional: each layer names the tensors it
// takes (a layer or input name, or a list of them for merges); otherwise it is a Sequential of
// `layers` on `input`.
#include <memory>

#include "kiln/framework/core/config.h"
#include "kiln/training/model/model.h"

namespace kiln::configs {

std::shared_ptr<Model> build_model(const Config& model);

}  // namespace kiln::configs
