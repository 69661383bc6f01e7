#include "kiln/layers/preprocessing/discretization.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/category_encoding.h"
#include "kiln/layers/preprocessing/quantile_summary.h"

namespace kiln::layers {

Discretization::Discretization(std::vector<double> bin_boundaries, DiscretizationOptions options)
    : Layer(options.layer_args()),
      boundaries_(std::move(bin_boundaries)),
      options_(std::move(options)) {
  const std::string what = "Discretization '" + name() + "'";
  KILN_CHECK(!boundaries_.empty() || options_.num_bins, what,
             ": set bin_boundaries, or num_bins to adapt them");
  KILN_CHECK(!options_.num_bins || *options_.num_bins >= 1, what,
             ": num_bins must be at least 1, got ", options_.num_bins.value_or(0));
  KILN_CHECK(options_.epsilon > 0 && options_.epsilon <= 1, what,
             ": epsilon must be in (0, 1], got ", options_.epsilon);
  KILN_CHECK(std::is_sorted(boundaries_.begin(), boundaries_.end()), what,
             ": bin_boundaries must be sorted");
  check_output_mode(options_.output_mode, true, what);
}

void Discretization::adapt(const Batches& next) {
  const std::string what = "Discretization '" + name() + "'";
  KILN_CHECK(options_.num_bins, what, " was given its bin_boundaries: adapt needs num_bins");
  QuantileSummary summary(options_.epsilon);
  while (std::optional<Tensor> batch = next()) {
    KILN_CHECK(batch->dtype() != DType::string, what, ": adapt reads numbers, got strings");
    summary.add(ops::cast(*batch, DType::f32).to_vector<float>());
  }
  KILN_CHECK(!summary.empty(), what, ": adapt saw no values");
  boundaries_ = summary.boundaries(*options_.num_bins);
}

std::vector<Tensor> Discretization::call(const std::vector<Tensor>& inputs, const CallContext&) {
  KILN_CHECK(!needs_adapt(), "Discretization '", name(),
             "' has no bin_boundaries yet: adapt it to data or give them");
  const Tensor x = ops::cast(inputs[0], DType::f64);
  const Tensor boundaries =
      from_vector(boundaries_, {static_cast<int64_t>(boundaries_.size())}, DType::f64, x.device());
  // The bin: how many boundaries lie at or below the value.
  const Tensor bins = ops::sum(
      ops::cast(ops::greater_equal(ops::expand_dims(x, -1), boundaries), DType::i64), {-1});
  return {encode_categories(bins, static_cast<int64_t>(boundaries_.size()) + 1,
                            options_.output_mode, dtype_policy().compute,
                            "Discretization '" + name() + "'")};
}

std::vector<TensorMeta> Discretization::compute_output_spec(const std::vector<TensorMeta>& inputs) {
  if (!needs_adapt()) return Layer::compute_output_spec(inputs);
  // Before adapt, as Keras: num_bins bins.
  const bool ints = options_.output_mode == "int";
  return {{ints ? DType::i64 : dtype_policy().compute,
           encoded_shape(inputs.at(0).shape, *options_.num_bins, options_.output_mode),
           inputs[0].device}};
}

namespace {

using Options = DiscretizationOptions;

struct Arguments : Options {
  std::optional<std::vector<double>> bin_boundaries;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {field("bin_boundaries", &Arguments::bin_boundaries)},
      FieldTable<Options>{
          field("output_mode", &Options::output_mode), field("num_bins", &Options::num_bins),
          field("epsilon", &Options::epsilon),
          read_only(fixed_field<Options>("sparse", Config(false), "kiln's tensors are dense"))});
  return table;
}

}  // namespace

Config Discretization::get_config() const {
  Arguments a{options_};
  if (!boundaries_.empty()) a.bin_boundaries = boundaries_;
  return write_fields(a, fields(), Layer::get_config());
}

LayerPtr Discretization::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Discretization");
  return std::make_shared<Discretization>(a.bin_boundaries.value_or(std::vector<double>{}), a);
}

}  // namespace kiln::layers
