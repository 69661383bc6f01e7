#pragma once
// Model weights in HDF5, as Keras writes and reads them.
//
// save_weights writes Keras 3's .weights.h5 layout: each of a model's weight groups at
// <path>/vars/0, /1, ... (layers/dense/vars/0 is the first Dense layer's kernel), so h5py reads
// it and keras.Model.load_weights loads it into the same architecture. The write is atomic: a
// crash leaves the previous file whole.
//
// load_weights reads that layout, and the legacy Keras HDF5 layout (model.save / Keras 2's
// save_weights: model_weights/<layer>/<weight> listed by the layer_names and weight_names
// attributes, matched to the model's layers with weights in order, as Keras does). Every
// variable is checked (present, shape, a numeric type) before any is assigned, so a file that
// does not fit leaves the model as it was; errors name the file, the layer, the variable and both
// shapes.
//
// Saving works on what a model holds, not on the Model class (which calls it from
// save_weights/load_weights), so training/saving needs nothing of training/model.
#include <string>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/training/saving/h5_file.h"

namespace kiln::saving {

// What a weights file is written from and loaded into: the model's name (for messages), whether
// it is built, its weight groups (Keras 3's layout; Model::weight_groups) and its layers in order
// (the legacy layout's; Model::layers).
struct ModelWeights {
  std::string name;
  bool built = false;
  std::vector<layers::WeightGroup> groups;
  std::vector<layers::LayerPtr> layers;
};

void save_weights(const ModelWeights& model, const std::string& path);
void load_weights(const ModelWeights& model, const std::string& path);

// The same into and out of an open file's root (a .keras archive's model.weights.h5).
void write_weights(const ModelWeights& model, H5Group root);
void read_weights(const ModelWeights& model, const H5Group& root);

}  // namespace kiln::saving
