#pragma once
// The Keras Layer contract in C++. A constructor stores the config; build(input_shapes) creates
// weights on the first call, when input shapes are known; call(inputs, context) computes. The
// same call runs eagerly on concrete tensors, symbolically (functional model building, shape
// inference) and inside traced train steps.
//
//   class Scale : public kiln::layers::Layer {
//     KILN_LAYER_CLASS(Scale)
//    public:
//     explicit Scale(LayerArgs args = {}) : Layer(std::move(args)) {}
//     void build(const std::vector<Shape>& shapes) override {
//       factor_ = add_weight("factor", {shapes[0].dim(-1)}, initializers::ones());
//     }
//     std::vector<Tensor> call(const std::vector<Tensor>& in, const CallContext&) override {
//       return {in[0] * read(factor_)};
//     }
//    private:
//     Variable factor_;
//   };
#include <concepts>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/framework/tensor/variable.h"
#include "kiln/layers/constraints/constraints.h"
#include "kiln/layers/dtype_policy.h"
#include "kiln/layers/initializers/initializers.h"
#include "kiln/layers/keras_tensor.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

// What every layer accepts besides its own arguments (Keras's base-layer kwargs).
struct LayerArgs {
  std::string name{};      // "" = a unique snake_case name from the class ("dense_2")
  bool trainable = true;   // false freezes every weight of the layer
  std::string dtype{};     // dtype policy name; "" = the global policy
  Shape input_shape = {};  // without the batch dim: lets a Sequential build from its first layer
  // A penalty on each output, added to the training loss (Keras's activity_regularizer).
  regularizers::RegularizerPtr activity_regularizer = nullptr;
};

// The same arguments as fields of a layer's options struct, after its own (so designated
// initializers read `{.activation = "relu", .name = "fc1"}`).
#define KILN_LAYER_ARGS_FIELDS                                          \
  std::string name{};                                                   \
  bool trainable = true;                                                \
  std::string dtype{};                                                  \
  ::kiln::Shape input_shape{};                                          \
  ::kiln::regularizers::RegularizerPtr activity_regularizer{};          \
  ::kiln::layers::LayerArgs layer_args() const {                        \
    return {name, trainable, dtype, input_shape, activity_regularizer}; \
  }

struct CallContext {
  bool training = false;
  // One per input; an undefined tensor means that input has no mask (Keras: true = keep).
  std::vector<Tensor> masks{};
};

// Some of a layer's variables as Keras 3's weights files hold them: under the layer's group at
// `path` ("" for the layer itself, "cell" for a recurrent layer's, "forward_layer/cell", ...),
// saved as <path>/vars/0, /1, ... in this order, or under `keys` where a Keras layer names them
// (a lookup layer's "idf_weights"). `name` is the Keras object that owns them (the layer's name,
// "lstm_cell", "query"), which Keras records beside them.
//
// A group may also own files that a .keras archive keeps under assets/<path>/ (a lookup
// layer's vocabulary.txt, as Keras's save_assets writes it): save_assets gives them by file
// name, load_assets takes those the archive holds there.
using AssetFiles = std::map<std::string, std::string>;
struct WeightGroup {
  std::string path;
  std::vector<Variable> variables;
  std::string name;
  std::function<AssetFiles()> save_assets = nullptr;
  std::function<void(const AssetFiles&)> load_assets = nullptr;
  std::vector<std::string> keys = {};  // one per variable, or none for 0, 1, ...
};

class Layer : public std::enable_shared_from_this<Layer> {
 public:
  explicit Layer(LayerArgs args = {});
  virtual ~Layer();
  Layer(Layer&&) = default;
  Layer& operator=(Layer&&) = default;

  // Keras's __call__: builds on first use, casts floating inputs to the compute dtype, calls.
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs,
                                 const CallContext& context = {});
  Tensor operator()(const Tensor& input, bool training = false);
  // On symbolic inputs (functional API): records the call. A temporary layer moves to the heap;
  // a named one must already be owned by a shared_ptr (std::make_shared or kiln::layers::share).
  std::vector<KerasTensor> operator()(const std::vector<KerasTensor>& inputs) &;
  std::vector<KerasTensor> operator()(const std::vector<KerasTensor>& inputs) &&;
  KerasTensor operator()(const KerasTensor& input) &;
  KerasTensor operator()(const KerasTensor& input) &&;

  // ---- what subclasses define ----
  virtual std::string class_name() const = 0;
  // The layer moved into a shared_ptr (KILN_LAYER_CLASS defines it).
  virtual std::shared_ptr<Layer> into_shared() && = 0;
  // Creates weights from the input shapes (batch dim first, possibly unknown).
  virtual void build(const std::vector<Shape>& input_shapes);
  virtual std::vector<Tensor> call(const std::vector<Tensor>& inputs,
                                   const CallContext& context) = 0;
  // Output shapes for input shapes; the default builds and runs call() on symbolic tensors.
  virtual std::vector<TensorMeta> compute_output_spec(const std::vector<TensorMeta>& inputs);
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes);
  // The output masks: the input mask passed through when the layer supports masking, else none
  // (and a warning, once per layer, that the mask stops there).
  virtual std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                           const std::vector<Tensor>& masks);
  // {"name", "trainable", "dtype", plus the layer's own arguments}; from_config is the
  // registry's job (layers/registry.h).
  virtual Config get_config() const;
  // The layer's variables grouped as Keras 3 saves them (model.save_weights): by default its own
  // weights (those created trainable first, as Keras's save_own_variables) at "", then each
  // tracked sublayer's groups under its snake_case class name ("dense", "dense_1", ...). Layers
  // whose Keras counterpart nests its weights elsewhere override this.
  virtual std::vector<WeightGroup> weight_groups() const;

  // ---- state ----
  const std::string& name() const;
  bool built() const { return built_; }
  bool trainable() const { return trainable_; }
  // Keras's setter: this layer and every sublayer, so a frozen model's BatchNormalization layers
  // run in inference mode too.
  void set_trainable(bool trainable);
  const DTypePolicy& dtype_policy() const { return policy_; }
  const Shape& input_shape_arg() const { return input_shape_; }
  bool supports_masking() const { return supports_masking_; }

  // Own weights then sublayers', depth first, each once (shared sublayers count once).
  std::vector<Variable> weights() const;
  std::vector<Variable> trainable_weights() const;
  std::vector<Variable> non_trainable_weights() const;
  int64_t count_params() const;
  // The states of the layer's random streams (its SeedGenerators) and its sublayers': not
  // weights, but a checkpoint keeps them so a resumed run draws the same dropout masks.
  std::vector<Variable> random_states() const;
  // The tracked sublayers (a model's layers, a wrapper's inner layer).
  const std::vector<std::shared_ptr<Layer>>& sublayers() const { return sublayers_; }
  // The sum of the regularizers' penalties on the trainable weights, a shared layer's once
  // (undefined when there are none).
  Tensor regularization_loss() const;

  // Builds from shapes without calling (what Keras's model.build does).
  void build_from(const std::vector<Shape>& input_shapes);

 protected:
  // Undoes build() at the end of the trial that ran it (trial_build.h): the weights it added go
  // (those after the first `kept`, which the constructor may have made) and the next call builds
  // again. Layers whose build() keeps more than weights override it.
  virtual void unbuild(size_t kept);
  friend class TrialBuild;
  // A weight named "<layer>/<name>", created from the initializer in the variable dtype (in a
  // trial build, a symbolic one); the optimizer applies `constraint` after each update.
  Variable add_weight(const std::string& name, const Shape& shape,
                      const initializers::InitializerPtr& initializer, bool trainable = true,
                      regularizers::RegularizerPtr regularizer = nullptr,
                      const constraints::ConstraintPtr& constraint = nullptr);
  // A non-trainable weight of any dtype, starting at `initial`'s values (an int64 counter).
  Variable add_state(const std::string& name, const Tensor& initial);
  // A sublayer whose weights become this layer's (subclassed models, wrappers).
  template <typename L>
  std::shared_ptr<L> track(std::shared_ptr<L> layer) {
    sublayers_.push_back(layer);
    return layer;
  }
  template <typename L>
  requires std::derived_from<L, Layer> std::shared_ptr<L> track(L&& layer) {
    return track(std::make_shared<L>(std::forward<L>(layer)));
  }
  // Registers a SeedGenerator's state for random_states().
  void track_random_state(const Variable& state) { random_states_.push_back(state); }
  // The layer's own weights, those created trainable first (Keras's save order).
  std::vector<Variable> own_weights() const;
  // Replaces the tracked sublayers (a Sequential's pop).
  void set_sublayers(std::vector<std::shared_ptr<Layer>> layers) { sublayers_ = std::move(layers); }
  // A weight's value in the compute dtype (cast under mixed policies).
  Tensor read(const Variable& weight) const;
  // Layers that pass masks through unchanged (elementwise ones) set this.
  bool supports_masking_ = false;
  // Floating inputs are cast to the compute dtype before call(); layers that read them at full
  // precision (Embedding's ids, LayerNormalization's statistics) turn this off, as in Keras.
  bool autocast_ = true;

 private:
  std::vector<KerasTensor> call_symbolic(std::shared_ptr<Layer> self,
                                         const std::vector<KerasTensor>& inputs);
  void collect_weights(std::vector<Variable>& out, std::vector<const Layer*>& seen) const;
  void collect_trainable(std::vector<Variable>& out, std::vector<const Layer*>& seen,
                         bool want_trainable, bool parent_trainable = true) const;
  // Adds the penalties of the trainable weights under this layer not yet seen to total.
  void add_penalties(Tensor& total, std::vector<const Layer*>& seen, bool parent_trainable) const;

  mutable std::string name_;  // given on first use (see name())
  bool trainable_ = true;
  DTypePolicy policy_;
  Shape input_shape_;
  regularizers::RegularizerPtr activity_regularizer_;
  bool built_ = false;
  bool warned_mask_dropped_ = false;
  std::vector<Variable> weights_;
  std::vector<Variable> random_states_;
  std::vector<regularizers::RegularizerPtr> regularizers_;  // parallel to weights_
  std::vector<std::shared_ptr<Layer>> sublayers_;
};

using LayerPtr = std::shared_ptr<Layer>;

// Moves a layer to the heap for sharing between several calls (shared layers).
template <typename L>
requires std::derived_from<L, Layer> std::shared_ptr<L> share(L&& layer) {
  return std::make_shared<L>(std::forward<L>(layer));
}

// A layer held by a container (Sequential, model lists): from a shared_ptr, or a temporary
// layer moved to the heap, so `Sequential({Dense(64), Dropout(0.5)})` reads as in Keras.
class LayerRef {
 public:
  template <typename L>
  requires std::derived_from<L, Layer> LayerRef(std::shared_ptr<L> layer)
      : layer_(std::move(layer)) {}
  template <typename L>
  requires(std::derived_from<std::remove_cvref_t<L>, Layer> && !std::is_lvalue_reference_v<L>)
      LayerRef(L&& layer)
      : layer_(std::make_shared<std::remove_cvref_t<L>>(std::move(layer))) {}
  // An Input(...) in a Sequential list: its input layer.
  LayerRef(const KerasTensor& input);

  const LayerPtr& get() const { return layer_; }

 private:
  LayerPtr layer_;
};

// A unique name for an instance of a class in this process: "dense", "dense_1", ... (Keras's
// backend uid). reset_names() restarts the counts (keras.backend.clear_session()).
std::string unique_name(const std::string& class_name);
void reset_names();
std::string to_snake_case(const std::string& class_name);

// Each layer's weight groups under prefix/<snake_case class name>, numbered per class from the
// second on ("layers/dense", "layers/dense_1"), as Keras names the members of a layer list.
std::vector<WeightGroup> layer_list_weight_groups(const std::string& prefix,
                                                  const std::vector<LayerPtr>& layers);
// `layer`'s groups with `prefix` put before their paths.
void append_weight_groups(std::vector<WeightGroup>& out, const std::string& prefix,
                          const Layer& layer);

}  // namespace kiln::layers

// Inside a layer class: its Keras class name and the move into a shared_ptr.
#define KILN_LAYER_CLASS(Name)                                       \
 public:                                                             \
  std::string class_name() const override {                          \
    return #Name;                                                    \
  }                                                                  \
  std::shared_ptr<::kiln::layers::Layer> into_shared() && override { \
    return std::make_shared<Name>(std::move(*this));                 \
  }                                                                  \
                                                                     \
 private:
