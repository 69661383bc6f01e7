#pragma once
// keras.Model: a layer with training. Three ways to make one, as in Keras: Sequential (a layer
// list), functional (Input -> layers -> Model(inputs, outputs)), or a subclass that tracks its
// layers and overrides call(). compile / fit / evaluate / predict run through traced steps
// (training/model/trainer.h).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/layers/layer.h"
#include "kiln/layers/preprocessing/string_layer.h"
#include "kiln/training/callbacks/callback.h"
#include "kiln/training/model/compile_options.h"
#include "kiln/training/model/fit_options.h"
#include "kiln/training/model/history.h"
#include "kiln/training/saving/checkpoint.h"

namespace kiln {

class Trainer;
class FunctionalGraph;

// One row of Model::summary: "name (Class)", output shape, parameter count, inbound layers.
struct SummaryRow {
  std::string layer;
  std::string output_shape;
  int64_t params = 0;
  std::string connected_to;
};

class Model : public layers::Layer {
 public:
  // A subclassed model: track its layers, override call().
  explicit Model(std::string name = "");
  // A functional model: the graph of layer calls from `inputs` to `outputs` (keras.Model(inputs,
  // outputs)).
  Model(std::vector<layers::KerasTensor> inputs, std::vector<layers::KerasTensor> outputs,
        std::string name = "");
  Model(const layers::KerasTensor& input, const layers::KerasTensor& output, std::string name = "");
  ~Model() override;
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  // "Functional" for a functional model; subclasses name themselves (KILN_LAYER_CLASS).
  std::string class_name() const override;
  std::shared_ptr<layers::Layer> into_shared() && override;
  // A functional model runs its graph; a subclass must override this.
  std::vector<Tensor> call(const std::vector<Tensor>& inputs,
                           const layers::CallContext& context) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  // The output masks of the latest call, one per output (undefined where an output has none);
  // compile's losses and metrics skip the masked positions (Keras keeps these masks on the
  // output tensors). A subclassed model sets them with set_output_masks in its call.
  const std::vector<Tensor>& output_masks() const { return output_masks_; }
  // A functional model's config as Keras writes it: {"name", "trainable", "layers" (each with
  // its "name" and "inbound_nodes"), "input_layers", "output_layers"}; a subclassed model's is
  // the base layer config (training/model/model_config.cpp).
  Config get_config() const override;
  // Keras 3's weights-file layout: the model's own group, then its layers under
  // layers/<snake_case class name> (numbered per class from the second on).
  std::vector<layers::WeightGroup> weight_groups() const override;
  // model.save_weights / model.load_weights: Keras's .weights.h5 (and, to load, the legacy
  // Keras .h5); see training/saving/weights_file.h.
  void save_weights(const std::string& path) const;
  void load_weights(const std::string& path);
  // model.save("m.keras"): the whole model (config, weights, compile arguments and optimizer
  // state) in Keras 3's .keras format; kiln::load_model reads it (training/model/keras_file.h).
  void save(const std::string& path) const;
  // What the weights files are written from and loaded into.
  saving::ModelWeights saved_weights() const;
  // The compiled model's optimizer state as the files store it: the "optimizer" group, Keras's.
  layers::WeightGroup optimizer_weights() const;
  // What a full checkpoint holds of this compiled model (training/saving/checkpoint.h): weights,
  // optimizer state, random streams and config.
  saving::CheckpointContents checkpoint_contents() const;
  // The functional model a config describes (Keras's "Functional"), with the same layer names
  // and shared layers; the layer registry knows it as "Functional" and "Model".
  static layers::LayerPtr from_config(const Config& config);

  // The model's layers, in order (a functional model's include its InputLayers).
  virtual std::vector<layers::LayerPtr> layers() const;
  layers::LayerPtr get_layer(const std::string& name) const;
  // A functional model's layer-call graph (null for a Sequential or a subclassed model).
  const FunctionalGraph* functional_graph() const { return graph_.get(); }
  // Inputs' specs when known (functional, or a Sequential with an input shape); empty otherwise.
  virtual std::vector<TensorMeta> input_specs() const;
  // The input specs the model was declared with (an Input, input_shape), not those a Sequential
  // took from its first call: later calls may differ (variable lengths retrace).
  virtual std::vector<TensorMeta> declared_input_specs() const { return input_specs(); }
  // The name of input i in messages: its InputLayer's.
  virtual std::string input_name(size_t i) const;
  // For each input, the StringLayer that reads it where the input is a string (a model's string
  // input must go into one, which alone reads it), else null. Strings have no ops: these layers
  // run on the host before the traced steps (layers/preprocessing/string_layer.h).
  virtual std::vector<std::shared_ptr<layers::StringLayer>> string_readers() const;
  // The inputs as the traced steps take them: each string input through its StringLayer.
  std::vector<Tensor> encode_string_inputs(const std::vector<Tensor>& x) const;
  // input_specs() as the steps see them: a string input's is its StringLayer's output spec.
  std::vector<TensorMeta> step_input_specs() const;
  // Refuses inputs that do not fit input_specs() (their number, rank and known dims), naming
  // `call` (the public call: "fit", "predict", ...), the input and both shapes. The entry points
  // check before they create any state.
  void check_inputs(const std::vector<Tensor>& x, std::string_view call) const;
  size_t num_outputs() const;
  // The name of output i in logs of multi-output models: its layer's name.
  std::string output_name(size_t i) const;

  // Keras's summary table (layer, output shape, params, totals), at most `line_length` wide.
  std::string summary(int line_length = 0) const;

  // ---- training (training/model/trainer.cpp) ----
  void compile(CompileOptions options);
  History fit(const Tensor& x, const Tensor& y, FitOptions options = {});
  History fit(const std::vector<Tensor>& x, const std::vector<Tensor>& y, FitOptions options = {});
  History fit(const datasets::Dataset& data, FitOptions options = {});
  // Loss and metrics by name ("loss", "accuracy", ...).
  std::map<std::string, double> evaluate(const Tensor& x, const Tensor& y,
                                         EvaluateOptions options = {});
  std::map<std::string, double> evaluate(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                         EvaluateOptions options = {});
  std::map<std::string, double> evaluate(const datasets::Dataset& data,
                                         EvaluateOptions options = {});
  Tensor predict(const Tensor& x, PredictOptions options = {});
  std::vector<Tensor> predict(const std::vector<Tensor>& x, PredictOptions options = {});
  std::map<std::string, double> train_on_batch(const std::vector<Tensor>& x,
                                               const std::vector<Tensor>& y,
                                               const Tensor& sample_weight = {});
  std::map<std::string, double> test_on_batch(const std::vector<Tensor>& x,
                                              const std::vector<Tensor>& y,
                                              const Tensor& sample_weight = {});
  std::vector<Tensor> predict_on_batch(const std::vector<Tensor>& x);

  // Builds the model, the optimizer's slots and the traced steps for the first batch of `data`'s
  // pass `pass`, as fit does before its callbacks start; a batch that does not fit the model is
  // refused with a message naming `call` before anything is made (Trainer::prepare). Nothing to
  // do once the steps exist.
  void prepare_for(const datasets::Dataset& data, std::string_view call, uint64_t pass = 0);

  // Whether compile() was called (predict runs an uncompiled model through a trainer of its own).
  bool compiled() const;
  // Where the model runs: fixed by compile (CompileOptions::device) or, for a model never
  // compiled, by its first predict; before either, where it would run.
  Device device() const;
  // Whether this process writes the run's files: rank 0 of a data-parallel strategy, or the only
  // process (compile's strategy, training/distribute/strategy.h).
  bool is_chief() const;
  // The trainer's state: optimizer, loss, metrics and traced steps (after compile).
  Trainer& trainer() const;
  // Set by callbacks (EarlyStopping, TerminateOnNaN) to end fit after the current batch.
  bool stop_training = false;
  // Set by a callback's on_train_begin (BackupAndRestore) when it restored a run: the fit
  // continues at this epoch, skipping the batches of it already trained, instead of at
  // initial_epoch.
  void resume_fit_at(int epoch, int64_t step) { resume_point_ = {epoch, step}; }

  // ---- weights ----
  std::vector<Tensor> get_weights() const;  // copies, in weights() order
  void set_weights(const std::vector<Tensor>& values);

 protected:
  // Layers a subclass owns: tracked so their weights are the model's.
  using Layer::track;
  // The rows of summary(); a Sequential and a functional model know each layer's output shape.
  virtual std::vector<SummaryRow> summary_rows() const;
  void set_output_masks(std::vector<Tensor> masks) { output_masks_ = std::move(masks); }

 private:
  std::vector<Tensor> output_masks_;
  std::shared_ptr<FunctionalGraph> graph_;  // set for functional models
  std::unique_ptr<Trainer> trainer_;
  bool compiled_ = false;  // trainer_ came from compile(), not from predict
  // The data passes fit has used: a later fit call starts after them (less its initial_epoch,
  // so fit(initial_epoch=5) after fit(epochs=5) continues where that ended).
  uint64_t data_passes_ = 0;
  // The trainer, made without compile() for predict when there is none.
  Trainer& predicting_trainer();
  // Makes `trainer` the model's, with the model's and the trainer's variables on its device, and
  // logs where the model runs and why.
  void adopt(std::unique_ptr<Trainer> trainer, const std::string& reason);
  // prepare_for, with fit's `validation` data checked too (its first batch).
  void prepare_steps(const datasets::Dataset& data, std::string_view call, uint64_t pass,
                     const std::optional<datasets::Dataset>& validation);
  std::optional<std::pair<int, int64_t>> resume_point_;
};

using ModelPtr = std::shared_ptr<Model>;

}  // namespace kiln
